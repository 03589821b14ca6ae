import type { Stores } from '../../../store/store-contract.ts';

/** The stores the admin and reporting routes read: the store contract's (SQLite or Postgres). */
export type AdminStores = Pick<Stores, 'usage' | 'activity' | 'admin' | 'audit' | 'refusals'>;
