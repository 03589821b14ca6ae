import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Loadable, Table } from '../components.tsx';
import { shortTime } from '../format.ts';
import { useApi } from '../use-api.ts';
import { errorText } from './key-forms.tsx';
import { EditMemberAccess, memberAccessText } from './member-access.tsx';
import type { Member } from '../api/types.ts';
import { asyncHandler } from '../async-handler.ts';

// The account's members and their roles (docs/governance.md): invite (add), change a role,
// remove — asking what becomes of the member's keys (disabled, or given to another member);
// a member's allowed models and budget, edited in place.

type Role = Member['role'];
const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];

export function Members() {
  const members = useApi<{ data: Member[] }>('/members');
  const [removing, setRemoving] = useState<Member | null>(null);
  const [editing, setEditing] = useState<Member | null>(null);
  const [error, setError] = useState('');
  const list = members.data?.data ?? [];
  const act = async (fn: () => Promise<unknown>): Promise<void> => {
    setError('');
    try {
      await fn();
    } catch (err) {
      setError(errorText(err));
    }
    members.reload();
  };
  return (
    <>
      <Invite onAdded={() => members.reload()} />
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {removing !== null && (
        <RemoveMember
          member={removing}
          others={list.filter((m) => m.id !== removing.id)}
          onDone={() => {
            setRemoving(null);
            members.reload();
          }}
        />
      )}
      {editing !== null && (
        <EditMemberAccess
          key={editing.id}
          member={editing}
          onClose={() => {
            setEditing(null);
            members.reload();
          }}
          save={(body) => api('PATCH', `/members/${editing.id}`, body)}
        />
      )}
      <Loadable loading={members.loading && members.data === undefined} error={members.error} empty={list.length === 0}>
        <Table
          label="Members"
          rows={list}
          rowKey={(m) => m.id}
          columns={[
            {
              key: 'name',
              label: 'Member',
              sort: (m) => m.name,
              render: (m) => (
                <>
                  {m.name}
                  <br />
                  <span class="hint">{m.email}</span>
                </>
              ),
            },
            {
              key: 'role',
              label: 'Role',
              sort: (m) => m.role,
              render: (m) => (
                <select
                  aria-label={`Role of ${m.email}`}
                  value={m.role}
                  onChange={asyncHandler((e: Event) =>
                    act(() => api('PATCH', `/members/${m.id}`, { role: (e.target as HTMLSelectElement).value })),
                  )}
                >
                  {ROLES.map((r) => (
                    <option value={r}>{r}</option>
                  ))}
                </select>
              ),
            },
            {
              key: 'access',
              label: 'Access',
              render: (m) => (
                <span class="wrap-list" data-testid="member-access">
                  {memberAccessText(m)}
                </span>
              ),
            },
            { key: 'added', label: 'Added', sort: (m) => m.created_at, render: (m) => shortTime(m.created_at) },
            {
              key: 'actions',
              label: 'Actions',
              render: (m) => (
                <span class="actions">
                  <button type="button" aria-label={`Edit the access of ${m.email}`} onClick={() => setEditing(m)}>
                    Access
                  </button>
                  <button type="button" class="danger" aria-label={`Remove ${m.email}`} onClick={() => setRemoving(m)}>
                    Remove
                  </button>
                </span>
              ),
            },
          ]}
        />
      </Loadable>
    </>
  );
}

function Invite({ onAdded }: { onAdded: () => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [error, setError] = useState('');
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    try {
      await api('POST', '/members', { email, role, ...(name === '' ? {} : { name }) });
      setEmail('');
      setName('');
      setRole('member');
      onAdded();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card form-row" onSubmit={asyncHandler(submit)} aria-label="Invite a member">
      <div>
        <label for="member-email">Email</label>
        <input id="member-email" type="email" required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
      </div>
      <div>
        <label for="member-name">Name (optional)</label>
        <input id="member-name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </div>
      <div>
        <label for="member-role">Role</label>
        <select id="member-role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as Role)}>
          {ROLES.map((r) => (
            <option value={r}>{r}</option>
          ))}
        </select>
      </div>
      <button type="submit">Invite</button>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** Asks what becomes of the member's keys: disabled, or given to another member. */
function RemoveMember({ member, others, onDone }: { member: Member; others: Member[]; onDone: () => void }) {
  const [choice, setChoice] = useState<'disable' | 'reassign'>('disable');
  const [to, setTo] = useState(others[0]?.id ?? '');
  const [error, setError] = useState('');
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setError('');
    try {
      await api('DELETE', `/members/${member.id}?keys=${choice}${choice === 'reassign' ? `&to=${encodeURIComponent(to)}` : ''}`);
      onDone();
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form class="card" aria-label={`Remove ${member.email}`} onSubmit={asyncHandler(submit)}>
      <p>
        Remove <strong>{member.email}</strong>? Their dashboard sessions end at once. Their keys:
      </p>
      <label>
        <input type="radio" name="keys" value="disable" checked={choice === 'disable'} onChange={() => setChoice('disable')} /> disable them
      </label>
      <label>
        <input
          type="radio"
          name="keys"
          value="reassign"
          checked={choice === 'reassign'}
          disabled={others.length === 0}
          onChange={() => setChoice('reassign')}
        />{' '}
        give them to{' '}
        <select
          aria-label="Give the keys to"
          value={to}
          disabled={choice !== 'reassign'}
          onChange={(e) => setTo((e.target as HTMLSelectElement).value)}
        >
          {others.map((m) => (
            <option value={m.id}>{m.email}</option>
          ))}
        </select>
      </label>
      <div class="actions">
        <button type="submit" class="danger">
          Remove member
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {error !== '' && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
