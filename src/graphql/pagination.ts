import { Field, InputType, Int, ObjectType, ArgsType } from 'type-graphql';
import type { ClassType } from 'type-graphql';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type PageInfoFields } from './paging';

// The GraphQL types of paginated lists; the paging itself (cursors, the query, the page
// sizes) is in ./paging.ts, which the query services use without depending on graphql.

// simpleResolvers (here and on the edges and connections): graphql-js's own resolver for
// plain fields, without type-graphql's per-field wrapper; none of them has an auth rule (test/api/access-matrix.test.ts).
@ObjectType({ simpleResolvers: true })
export class PageInfo implements PageInfoFields {
  @Field()
  hasNextPage!: boolean;

  @Field()
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true })
  startCursor!: string | null;

  @Field(() => String, { nullable: true })
  endCursor!: string | null;
}

@ArgsType()
export class PageArgs {
  @Field(() => Int, { nullable: true, defaultValue: DEFAULT_PAGE_SIZE, description: `At most ${MAX_PAGE_SIZE}` })
  first: number = DEFAULT_PAGE_SIZE;

  @Field(() => String, { nullable: true, description: 'The endCursor of the previous page' })
  after?: string | null;
}

@InputType({ description: 'An inclusive-exclusive time range: from <= t < to' })
export class TimeRange {
  @Field(() => Date, { nullable: true })
  from?: Date | null;

  @Field(() => Date, { nullable: true })
  to?: Date | null;
}

/** `XConnection { edges { cursor node } pageInfo totalCount }` for a node type. */
export function connectionType<T extends object>(node: ClassType<T>, name: string) {
  @ObjectType(`${name}Edge`, { simpleResolvers: true })
  class EdgeType {
    @Field()
    cursor!: string;

    @Field(() => node)
    node!: T;
  }

  @ObjectType(`${name}Connection`, { simpleResolvers: true })
  class ConnectionType {
    @Field(() => [EdgeType])
    edges!: EdgeType[];

    @Field(() => PageInfo)
    pageInfo!: PageInfo;

    @Field(() => Int, { description: 'Items matching the filter, across all pages' })
    totalCount!: number;
  }
  return ConnectionType;
}
