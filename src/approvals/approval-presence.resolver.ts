import { keyName } from '../graphql/key-names';
import { Arg, Field, ID, ObjectType, Resolver, Root, Subscription } from 'type-graphql';
import type { SubscribeResolverData } from 'type-graphql';
import type { RequestContext } from '../graphql/context';
import { RoleEnum } from '../orgs/org.types';
import type { Role } from '../auth/roles';
import { isUuid } from '../db/ids';
import { notFound } from '../errors/app-error';
import { readableRunCheck } from '../runs/run-visibility';
import { authorize, recheckAccess } from '../realtime/subscription-access';
import { deferred } from '../realtime/cancellable';
import { ApprovalRequest } from './approval-request.entity';
import { presenceStream, type PresenceSnapshot } from './approval-presence';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Realtime } from '../realtime/realtime';

declare module '../graphql/context' {
  interface RequestServices {
    orm: MikroORM;
    realtime: Realtime;
  }
}

@ObjectType('ApprovalViewer', { description: 'Someone with an approval open: the API key as people know it (its name, else its role and prefix)' })
export class ApprovalViewerType {
  @Field()
  name!: string;

  @Field(() => RoleEnum)
  role!: Role;

  @Field({ description: "True for the subscriber's own view" })
  you!: boolean;
}

@ObjectType('ApprovalPresence')
export class ApprovalPresenceType {
  @Field(() => ID)
  approvalId!: string;

  @Field(() => [ApprovalViewerType], { description: 'Everyone with the approval open now, this subscriber included' })
  viewers!: ApprovalViewerType[];
}

type Data = SubscribeResolverData<unknown, Record<string, unknown>, RequestContext>;

@Resolver()
export class ApprovalPresenceResolver {
  @Subscription(() => ApprovalPresenceType, {
    description:
      'Who has the approval open: the subscription itself is the view (it counts while open). Sent at once and after each change. Viewers on every node are counted; those of a node that died are dropped after about two presence heartbeats',
    subscribe: ({ context, args }: Data) =>
      deferred(() => {
        const caller = authorize(context, 'Subscription.approvalPresence');
        const approvalId = String(args.approvalId);
        return lazyStream(async () => {
          const em = context.services.orm.em.fork();
          const approval = isUuid(approvalId) ? await em.findOne(ApprovalRequest, { id: approvalId, orgId: caller.orgId }) : null;
          const readable = readableRunCheck(em, caller);
          if (!approval || (readable && !(await readable(approval.runId)))) throw notFound('Approval request');
          const key = caller.keyId ? await context.loaders.apiKeyById.load(caller.keyId) : null;
          const name = key ? keyName(key) : caller.role;
          return presenceStream(context.services.realtime.presence, caller.orgId, approval.id, { name, role: caller.role }, () =>
            recheckAccess(context),
          );
        });
      }),
  })
  approvalPresence(@Root() snapshot: PresenceSnapshot, @Arg('approvalId', () => ID) _approvalId: string): ApprovalPresenceType {
    return snapshot;
  }
}

/** A source whose checks are asynchronous: built on the first `next()`, its refusals end the subscription with their code. */
function lazyStream<T>(create: () => Promise<AsyncIterableIterator<T>>): AsyncIterableIterator<T> {
  let inner: Promise<AsyncIterableIterator<T>> | null = null;
  let ended = false;
  return {
    next: async () => {
      if (ended) return { value: undefined as T, done: true };
      inner ??= create();
      return (await inner).next();
    },
    return: async (value?: unknown) => {
      ended = true;
      const built = inner ? await inner.catch(() => null) : null;
      return (await built?.return?.(value)) ?? { value: value as T, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
