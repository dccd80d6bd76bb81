import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { nameOfKey } from '../graphql/key-names';
import { LedgerEventType } from './ledger.types';

@Resolver(() => LedgerEventType)
export class LedgerEventResolver {
  @FieldResolver(() => String, {
    nullable: true,
    description: 'Who acted, as people know the key: its name, else its role and prefix (null: the system, or no key)',
  })
  actorName(@Root() event: LedgerEventType, @Ctx() ctx: RequestContext): Promise<string | null> {
    return nameOfKey(ctx.loaders, event.actorKeyId);
  }
}
