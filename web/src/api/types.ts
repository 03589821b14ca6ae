import type { components, operations } from './schema.ts';

// The API's objects as the dashboard reads them: named aliases of the types generated from
// the gateway's OpenAPI document (schema.ts, by openapi-typescript). A page takes its types
// from here, never declares a copy, so a server change that breaks a page fails the type check.

type Schemas = components['schemas'];

export type Account = Schemas['Account'];
export type AdminKey = Schemas['Key'];
export type AccountKey = Schemas['AccountKey'];
export type KeyStatus = Schemas['Key']['status'];
export type ActivityRecord = Schemas['ActivityRecord'];
export type LedgerEntry = Schemas['LedgerEntry'];
export type AuditEntry = Schemas['AuditEntry'];
export type Model = Schemas['Model'];
export type UsageRow = Schemas['UsageRow'];
export type UsageReport = Schemas['UsageReport'];
export type Refusal = Schemas['Refusal'];
export type ProviderHealth = Schemas['ProviderHealth'];
export type KeyUsageDay = Schemas['KeyUsage']['data'][number];
export type Generation = Schemas['Generation'];
export type Member = Schemas['Member'];
export type DashboardSession = Schemas['DashboardSession'];
export type RunningConfig = Schemas['RunningConfig'];
export type ConfigReload = Schemas['ConfigReload'];
export type EndpointHealth = Schemas['ProviderHealth']['data']['providers'][number]['endpoints'][number];
export type ModelEndpoint = Schemas['ModelEndpoints']['data']['endpoints'][number];
export type Attempt = Schemas['Generation']['attempts'][number];
export type Webhook = Schemas['Webhook'];
export type WebhookCreated = Schemas['WebhookCreated'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
/** An event a webhook may subscribe to (the request schema's enum). */
export type WebhookEvent = operations['postApiV1Webhooks']['requestBody']['content']['application/json']['events'][number];

/** A list answer: `{data: [T]}` and, for paged lists, `next_cursor`. */
export interface List<T> {
  data: T[];
  next_cursor?: string | null;
}
/** A one-object answer: `{data: T}`. */
export interface One<T> {
  data: T;
}
