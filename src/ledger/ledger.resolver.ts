import { Args, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { ACCESS } from '../auth/access';
import { LedgerEventConnection, LedgerEventsArgs } from './ledger.types';
import { listLedgerEvents } from './ledger-query.service';

@Resolver()
export class LedgerResolver {
  @Authorized(...ACCESS.audit)
  @Query(() => LedgerEventConnection, { description: 'The audit ledger of the org, in sequence order' })
  async ledgerEvents(@Args(() => LedgerEventsArgs) args: LedgerEventsArgs, @Ctx() ctx: RequestContext) {
    return listLedgerEvents(ctx.em, requireCaller(ctx).orgId, args);
  }
}
