import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { ApprovalHistoryEntryType } from './approval-history';
import { nameOfKey } from '../graphql/key-names';

@Resolver(() => ApprovalHistoryEntryType)
export class ApprovalHistoryResolver {
  @FieldResolver(() => String, {
    nullable: true,
    description: 'Who did it, as people know the key: its name, else its role and prefix (null: expiry, or the system)',
  })
  async actorName(@Root() entry: ApprovalHistoryEntryType, @Ctx() ctx: RequestContext): Promise<string | null> {
    return nameOfKey(ctx.loaders, entry.actorKeyId);
  }
}
