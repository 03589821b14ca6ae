import { useState } from 'preact/hooks';
import { qs } from '../api.ts';
import { Loadable, Table } from '../components.tsx';
import { time } from '../format.ts';
import { useApi } from '../use-api.ts';
import { useAccountNames } from '../account-names.tsx';
import { AuditSentence, type AuditEntry } from '../audit/audit-sentence.tsx';

/** The audit log, newest first: each entry a sentence with links, its raw details one click away. */
export function AdminAudit() {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const audit = useApi<{ data: AuditEntry[]; next_cursor: string | null }>(`/admin/audit${qs({ limit: 100, cursor })}`);
  const names = useAccountNames(true);
  return (
    <Loadable loading={audit.loading} error={audit.error} empty={(audit.data?.data.length ?? 0) === 0}>
      <Table
        label="Audit log"
        rows={audit.data?.data ?? []}
        pageSize={100}
        rowKey={(e) => String(e.id)}
        columns={[
          { key: 'at', label: 'Time', render: (e) => <span class="nowrap">{time(e.at)}</span>, sort: (e) => e.at },
          {
            key: 'what',
            label: 'What happened',
            render: (e) => (
              <div data-testid="audit-sentence">
                <AuditSentence e={e} names={names} />
                {e.details == null ? null : (
                  <details class="raw">
                    <summary>Details</summary>
                    <code class="wrap">{JSON.stringify(e.details)}</code>
                  </details>
                )}
              </div>
            ),
            sort: (e) => e.action,
          },
        ]}
      />
      <div class="pager">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button
          type="button"
          disabled={audit.data?.next_cursor == null}
          onClick={() => setCursors([...cursors, audit.data?.next_cursor ?? null])}
        >
          Older
        </button>
      </div>
    </Loadable>
  );
}
