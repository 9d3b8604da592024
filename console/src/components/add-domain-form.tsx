import { useState } from 'preact/hooks';
import { ActionError } from '../../../kit/components/status.js';
import { useAction } from '../../../kit/hooks.js';
import { api } from '../api.js';
import type { Domain } from '../types.js';

/** Two labels (`example.com`): an apex, which cannot have a CNAME (RFC 1034 section 3.6.2). */
const isApex = (name: string) => name.replace(/\.$/, '').split('.').length === 2;

/** Add domain: a domain or subdomain, added as pending; the caller shows the records to add next. */
export function AddDomainForm({ onAdded }: { onAdded: (domain: Domain) => void }) {
  const [name, setName] = useState('');
  const { busy, error, run } = useAction();
  const trimmed = name.trim().toLowerCase();

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    await run(async () => {
      onAdded(await api.addDomain({ name: trimmed }));
      setName('');
    });
  };

  return (
    <form class="panel" onSubmit={submit} aria-labelledby="add-domain-heading">
      <h2 id="add-domain-heading">Add domain</h2>
      <label for="domain-name">Domain or subdomain</label>
      <div class="inline">
        <input
          id="domain-name"
          name="name"
          placeholder="docs.example.com"
          autocomplete="off"
          spellcheck={false}
          required
          aria-describedby="domain-apex"
          value={name}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        <button type="submit" class="button-primary" disabled={busy || trimmed === ''}>
          {busy ? 'Adding…' : 'Add'}
        </button>
      </div>
      <p id="domain-apex" class="hint" aria-live="polite">
        {isApex(trimmed)
          ? `${trimmed} is an apex domain: it needs an ALIAS or ANAME record at your DNS provider, since an apex cannot have a CNAME.`
          : ''}
      </p>
      <ActionError error={error} />
    </form>
  );
}
