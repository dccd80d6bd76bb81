import { Args, Authorized, Ctx, Extensions, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { LedgerEventConnection, LedgerEventsArgs, LedgerVerificationType } from './ledger.types';
import { VERIFY_LEDGER_COST, verifyLedgerExclusive } from './ledger-verify';
import { listLedgerEvents } from './ledger-query.service';

@Resolver()
export class LedgerResolver {
  @Authorized()
  @Query(() => LedgerEventConnection, { description: 'The audit ledger of the org, in sequence order' })
  async ledgerEvents(@Args(() => LedgerEventsArgs) args: LedgerEventsArgs, @Ctx() ctx: RequestContext) {
    return listLedgerEvents(ctx.em, requireCaller(ctx), args);
  }

  @Authorized()
  // It re-hashes the whole chain: a fixed large cost, charged again for each alias (src/api/limits.ts).
  @Extensions({ cost: VERIFY_LEDGER_COST })
  @Query(() => LedgerVerificationType, {
    description: "Recompute the org's ledger hash chain and name the first bad event. One at a time per org (else LEDGER_VERIFY_BUSY)",
  })
  async verifyLedger(@Ctx() ctx: RequestContext): Promise<LedgerVerificationType> {
    return verifyLedgerExclusive(ctx.em, requireCaller(ctx).orgId);
  }
}
