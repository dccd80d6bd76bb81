import type DataLoader from 'dataloader';
import { ApiKey } from './api-key.entity';
import { uniqueLoader, type OrgRows } from '../graphql/loaders';

declare module '../graphql/context' {
  interface RequestLoaders {
    apiKeyById: DataLoader<string, ApiKey | null>;
  }
}

export const apiKeyLoaders = (rows: OrgRows) => ({
  apiKeyById: uniqueLoader(rows(ApiKey, 'select * from api_keys where org_id = ? and id = any(?::uuid[])'), (row) => row.id),
});
