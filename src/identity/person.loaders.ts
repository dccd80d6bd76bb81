import type DataLoader from 'dataloader';
import { Person } from './person.entity';
import { uniqueLoader, type OrgRows } from '../graphql/loaders';

declare module '../graphql/context' {
  interface RequestLoaders {
    personById: DataLoader<string, Person | null>;
  }
}

export const personLoaders = (rows: OrgRows) => ({
  personById: uniqueLoader(rows(Person, 'select * from people where org_id = ? and id = any(?::uuid[])'), (row) => row.id),
});
