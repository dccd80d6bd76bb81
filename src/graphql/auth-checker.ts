import type { AuthChecker } from 'type-graphql';
import { AppError } from '../errors/app-error';
import type { RequestContext } from './context';
import type { Caller } from '../auth/caller';
import { mayUse } from '../auth/access';

/**
 * `@Authorized()`: no key → UNAUTHENTICATED; a role the access matrix does not list for the
 * field's coordinate (`Type.field`, src/auth/access.ts) → FORBIDDEN.
 */
export const authChecker: AuthChecker<RequestContext> = ({ context, info }) => {
  const caller = requireCaller(context);
  if (!mayUse(`${info.parentType.name}.${info.fieldName}`, caller.role)) {
    throw new AppError('FORBIDDEN', `This operation is not allowed for the ${caller.role} role`);
  }
  return true;
};

export function requireCaller(context: RequestContext): Caller {
  if (!context.caller) throw new AppError('UNAUTHENTICATED', 'An API key is required (Authorization: Bearer <key>)');
  return context.caller;
}
