import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { AddressPolicy } from './address-policy';
import { EgressRefusedError, egressRefused } from './egress-refused';

/** A host name's addresses (tests pass their own, so a name can resolve to loopback without /etc/hosts). */
export type EgressResolver = (hostname: string) => Promise<string[]>;

/** The system resolver (getaddrinfo, /etc/hosts included): what a plain connection would use. */
export const systemResolver: EgressResolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** The fetch the MCP SDK's transport and the webhook deliverer take. */
export type EgressFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * The egress policy for URLs a tenant chooses (webhook endpoints, upstream MCP servers).
 * `check` answers at registration; `fetch` is what sends to them: its connections go through
 * an undici Agent whose connector resolves the host once, checks every address, and
 * connects to the address it checked (TLS still verifies the name), so a name that resolves
 * elsewhere a moment later (DNS rebinding) cannot reach a refused address. Every connection
 * is checked, each new one of the pool included. Redirects are never followed.
 */
export class Egress {
  readonly policy: AddressPolicy;
  private readonly agent: Agent;

  constructor(
    allowCidrs: readonly string[],
    private readonly resolve: EgressResolver = systemResolver,
  ) {
    this.policy = new AddressPolicy(allowCidrs);
    const connect = buildConnector({});
    this.agent = new Agent({
      connect: (options, callback) => {
        this.pinnedAddress(options.hostname).then(
          (address) => connect({ ...options, hostname: address }, callback),
          (error: Error) => callback(error, null),
        );
      },
    });
  }

  /**
   * At registration: throws EGRESS_REFUSED (one message for every reason) unless the URL's
   * host resolves, and only to allowed addresses. Nothing is sent to it.
   */
  async check(url: string, field = 'url'): Promise<void> {
    try {
      await this.pinnedAddress(new URL(url).hostname);
    } catch {
      throw egressRefused(field);
    }
  }

  /**
   * fetch through the policy: a refused address or unresolvable name rejects (its cause an
   * EgressRefusedError), and a redirect answer is refused rather than followed (to another
   * origin it could carry a request, or a bearer token, where the policy never looked).
   */
  readonly fetch: EgressFetch = async (url, init) => {
    const response = await undiciFetch(url, { ...(init as object), redirect: 'manual', dispatcher: this.agent });
    if (response.status >= 300 && response.status < 400 && response.status !== 304) {
      await response.body?.cancel().catch(() => undefined);
      throw new EgressRefusedError('redirect');
    }
    return response as unknown as Response;
  };

  /** Closes the pooled connections (at shutdown, once nothing sends any more). */
  async close(): Promise<void> {
    await this.agent.destroy();
  }

  /** The one address a connection to `hostname` may use: every address it resolves to must be allowed. */
  private async pinnedAddress(hostname: string): Promise<string> {
    const host = hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      if (!this.policy.allows(host)) throw new EgressRefusedError('address');
      return host;
    }
    const addresses = await this.resolve(host).catch(() => [] as string[]);
    if (addresses.length === 0) throw new EgressRefusedError('unresolved');
    if (!addresses.every((address) => this.policy.allows(address))) throw new EgressRefusedError('address');
    return addresses[0];
  }
}
