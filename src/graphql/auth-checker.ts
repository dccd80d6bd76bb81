import type { AuthChecker } from 'type-graphql';
import { AppError } from '../errors/app-error';
import type { RequestContext } from './context';
import type { Caller } from '../auth/caller';

/** `@Authorized(roles)`: no key → UNAUTHENTICATED, a role not listed → FORBIDDEN. */
export const authChecker: AuthChecker<RequestContext> = ({ context }, roles) => {
  const caller = requireCaller(context);
  if (roles.length > 0 && !roles.includes(caller.role)) {
    throw new AppError('FORBIDDEN', `This operation is not allowed for the ${caller.role} role`);
  }
  return true;
};

export function requireCaller(context: RequestContext): Caller {
  if (!context.caller) throw new AppError('UNAUTHENTICATED', 'An API key is required (Authorization: Bearer <key>)');
  return context.caller;
}
