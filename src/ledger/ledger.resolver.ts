import { Args, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { LedgerEventConnection, LedgerEventsArgs, LedgerVerificationType } from './ledger.types';
import { verifyLedger } from './ledger-verify';
import { listLedgerEvents } from './ledger-query.service';

@Resolver()
export class LedgerResolver {
  @Authorized()
  @Query(() => LedgerEventConnection, { description: 'The audit ledger of the org, in sequence order' })
  async ledgerEvents(@Args(() => LedgerEventsArgs) args: LedgerEventsArgs, @Ctx() ctx: RequestContext) {
    return listLedgerEvents(ctx.em, requireCaller(ctx), args);
  }

  @Authorized()
  @Query(() => LedgerVerificationType, { description: "Recompute the org's ledger hash chain and name the first bad event" })
  async verifyLedger(@Ctx() ctx: RequestContext): Promise<LedgerVerificationType> {
    return verifyLedger(ctx.em, requireCaller(ctx).orgId);
  }
}
