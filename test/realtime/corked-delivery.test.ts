import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import type { RequestContext } from '../../src/graphql/context';
import { LedgerFeed } from '../../src/realtime/ledger-stream';
import { LedgerMember, type LiveFrame } from '../../src/realtime/ledger-member';
import { SocketWriter } from '../../src/realtime/socket-writer';
import { bounded } from './realtime-helpers';

/**
 * A burst's frames go to each member corked, one `writev` for several of them, through the
 * connection's TCP socket (the upgrade request's, which ws writes to). Corked or not, a
 * member sends the same messages and a client that stopped reading is ended at the same
 * frame (SUBSCRIPTION_MAX_LAG_EVENTS).
 */

test("corking the upgrade request's socket holds ws's frames until uncorked, then sends them in order (ws writes to that socket)", async () => {
  const server = http.createServer();
  const wss = new WebSocketServer({ server });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<{ socket: WebSocket; request: http.IncomingMessage }>((resolve) =>
    wss.once('connection', (socket, request) => resolve({ socket, request })),
  );
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const received: string[] = [];
  client.on('message', (data, isBinary) => {
    expect(isBinary).toBe(false);
    received.push(String(data));
  });
  try {
    const { socket, request } = await bounded(accepted, 'the connection');
    const writer = new SocketWriter(socket, request.socket);
    expect(writer.corkable).toBe(true);
    writer.cork();
    writer.write('one ✓', Buffer.byteLength('one ✓'));
    writer.write('two', 3);
    // Held in the TCP socket's buffer, counted as queued: ws wrote them to the corked socket.
    expect(request.socket.writableLength).toBeGreaterThan(0);
    expect(writer.queuedMessages()).toBe(2);
    writer.uncork();
    await bounded(
      (async () => {
        while (received.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
      'both messages at the client',
    );
    expect(received).toEqual(['one ✓', 'two']);
    expect(writer.queuedMessages()).toBe(0);
  } finally {
    client.terminate();
    for (const socket of wss.clients) socket.terminate();
    await new Promise((resolve) => wss.close(resolve));
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A ws socket stand-in: `reading` sockets hand every uncorked byte to the kernel at once, stuck ones keep all of it queued. */
function fakeSocket(reading: boolean) {
  const sent: string[] = [];
  let written = 0;
  let corked = 0;
  let heldWhileCorked = 0;
  const corks: number[] = [];
  const socket = {
    readyState: 1,
    protocol: 'graphql-transport-ws',
    get bufferedAmount() {
      return reading ? heldWhileCorked : written;
    },
    send(text: string) {
      sent.push(text);
      const bytes = Buffer.byteLength(text) + 2;
      written += bytes;
      if (corked) heldWhileCorked += bytes;
    },
  };
  const stream = {
    cork() {
      corked++;
      corks.push(sent.length);
    },
    uncork() {
      corked--;
      if (!corked) heldWhileCorked = 0;
    },
  };
  return { writer: new SocketWriter(socket as unknown as WebSocket, stream as never), sent, corks };
}

function member(writer: SocketWriter, maxLag: number): LedgerMember {
  const ctx = {
    caller: { keyId: 'key-1', orgId: 'org-1', role: 'expert' },
    services: { config: { subscriptions: { maxLagEvents: maxLag, bufferEvents: 100 } } },
  } as unknown as RequestContext;
  return new LedgerMember({ writer, id: 'sub-1' }, new LedgerFeed(ctx, null, async () => () => null), { sharedSends: 0 });
}

const frames = (count: number): LiveFrame[] =>
  Array.from({ length: count }, (_, i) => {
    const json = JSON.stringify({ data: { runEvents: { sequence: String(i + 1), text: 'é' } } });
    return { sequence: BigInt(i + 1), json, jsonBytes: Buffer.byteLength(json), refused: null };
  });

test("a batch to a reading client is written corked, as graphql-ws's next messages in order", () => {
  const { writer, sent, corks } = fakeSocket(true);
  member(writer, 1000).deliver(frames(300));
  expect(sent.map((text) => JSON.parse(text))).toEqual(frames(300).map((f) => ({ id: 'sub-1', type: 'next', payload: JSON.parse(f.json) })));
  // 128 frames per corked run at most.
  expect(corks).toEqual([0, 128, 256]);
});

test('a client that stopped reading is ended at the same frame corked as one frame at a time', async () => {
  const outcome = async (batches: LiveFrame[][]) => {
    const { writer, sent } = fakeSocket(false);
    const m = member(writer, 3);
    for (const batch of batches) m.deliver(batch);
    const error = await m.next().then(
      () => null,
      (e: unknown) => e,
    );
    return { sent: sent.length, error };
  };
  const corked = await outcome([frames(10)]);
  const oneByOne = await outcome(frames(10).map((f) => [f]));
  expect(corked).toEqual(oneByOne);
  expect(corked.sent).toBe(4);
  expect(corked.error).toMatchObject({ code: 'SUBSCRIBER_TOO_SLOW', details: { resumeAfterSequence: '4' } });
});
