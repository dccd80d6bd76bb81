import { GraphQLError, locatedError } from 'graphql';
import { AppError } from '../../src/errors/app-error';
import { appErrorOf, createErrorFormatter, errorCodeOf, isExpectedError, toGraphQLError } from '../../src/graphql/format-error';

/**
 * AppError knows no transport (src/ledger and src/gateway throw it without depending on
 * graphql); the GraphQL edge gives clients the same message and `extensions` (its code,
 * then its details) however the error reached it.
 */
const refusal = () => new AppError('APPROVAL_EDIT_ESCALATES', 'The edit asks for more than the call did', { reason: 'amount', field: 'params' });
const expected = { code: 'APPROVAL_EDIT_ESCALATES', reason: 'amount', field: 'params' };

test('an AppError is a plain Error with its code and details', () => {
  const error = refusal();
  expect(error).toBeInstanceOf(Error);
  expect(error).not.toBeInstanceOf(GraphQLError);
  expect(error).toMatchObject({ name: 'AppError', code: 'APPROVAL_EDIT_ESCALATES', details: { reason: 'amount', field: 'params' } });
});

describe('every way an AppError reaches the GraphQL edge formats alike', () => {
  const format = createErrorFormatter({ includeStack: false });
  const ways: [string, (error: AppError) => GraphQLError][] = [
    ['thrown by a resolver (graphql-js locates it)', (error) => locatedError(error, undefined, ['run'])],
    // Apollo Server (a plugin's throw) and graphql-ws (a subscription's iterator) wrap it without a path.
    ['wrapped by a transport', (error) => new GraphQLError(error.message, { originalError: error })],
    ['converted at the edge', (error) => toGraphQLError(error)],
    ['converted, then wrapped once more', (error) => new GraphQLError(error.message, { originalError: toGraphQLError(error) })],
  ];

  test.each(ways)('%s', (_way, reach) => {
    const error = reach(refusal());
    const formatted = format(error.toJSON(), error);
    expect(formatted.message).toBe('The edit asks for more than the call did');
    expect(formatted.extensions).toEqual(expected);
    expect(Object.keys(formatted.extensions ?? {})).toEqual(['code', 'reason', 'field']);
    expect(appErrorOf(error)?.code).toBe('APPROVAL_EDIT_ESCALATES');
    expect(errorCodeOf(error)).toBe('APPROVAL_EDIT_ESCALATES');
    expect(isExpectedError(error)).toBe(true);
  });

  test('in development the stack trace follows the fields', () => {
    const error = locatedError(refusal(), undefined, ['run']);
    const json = error.toJSON();
    const formatted = createErrorFormatter({ includeStack: true })(
      { ...json, extensions: { code: 'INTERNAL_SERVER_ERROR', stacktrace: ['at x'] } },
      error,
    );
    expect(Object.keys(formatted.extensions ?? {})).toEqual(['code', 'reason', 'field', 'stacktrace']);
  });

  test("the edge's own extensions (Apollo's http) travel on the GraphQLError, not the AppError", () => {
    const converted = toGraphQLError(refusal(), { http: { status: 422 } });
    expect(converted.extensions).toEqual({ ...expected, http: { status: 422 } });
    expect((converted.originalError as AppError).details).toEqual({ reason: 'amount', field: 'params' });
  });
});
