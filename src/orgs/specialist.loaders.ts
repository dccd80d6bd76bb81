import type DataLoader from 'dataloader';
import { Specialist } from './specialist.entity';
import { uniqueLoader, type OrgRows } from '../graphql/loaders';

declare module '../graphql/context' {
  interface RequestLoaders {
    specialistById: DataLoader<string, Specialist | null>;
  }
}

export const specialistLoaders = (rows: OrgRows) => ({
  specialistById: uniqueLoader(rows(Specialist, 'select * from specialists where org_id = ? and id = any(?::uuid[])'), (row) => row.id),
});
