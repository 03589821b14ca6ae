import type { DatabaseSync } from 'node:sqlite';
import { ActivityStore } from '../../../store/activity-store.ts';
import { AdminStore } from '../../../store/admin-store.ts';
import { AuditStore } from '../../../store/audit-store.ts';
import { UsageStore } from '../../../store/usage-store.ts';

/** The stores the admin and reporting routes read, built once when the routes are registered. */
export interface AdminStores {
  usage: UsageStore;
  activity: ActivityStore;
  admin: AdminStore;
  audit: AuditStore;
}

export function openAdminStores(db: DatabaseSync): AdminStores {
  return { usage: new UsageStore(db), activity: new ActivityStore(db), admin: new AdminStore(db), audit: new AuditStore(db) };
}
