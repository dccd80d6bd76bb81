import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { ApprovalHistoryEntryType, keyName } from './approval-history';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Resolver(() => ApprovalHistoryEntryType)
export class ApprovalHistoryResolver {
  @FieldResolver(() => String, {
    nullable: true,
    description: 'Who did it, as people know the key: its name, else its role and prefix (null: expiry, or the system)',
  })
  async actorName(@Root() entry: ApprovalHistoryEntryType, @Ctx() ctx: RequestContext): Promise<string | null> {
    if (!entry.actorKeyId || !UUID.test(entry.actorKeyId)) return null;
    const key = await ctx.loaders.apiKeyById.load(entry.actorKeyId);
    return key ? keyName(key) : null;
  }
}
