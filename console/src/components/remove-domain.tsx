import { ConfirmDialog } from '../../../kit/components/confirm-dialog.js';
import { api } from '../api.js';
import type { DomainRemoval } from '../types.js';

/** What to tell the operator after a removal: the DNS record is theirs to remove, or it would dangle. */
export function removalMessage({ name, dnsStillPointsHere }: DomainRemoval): string {
  return dnsStillPointsHere
    ? `${name} was removed. Its DNS still points here: remove its record at your DNS provider, or anyone who ` +
        'adds the name to a service like this one could serve it.'
    : `${name} was removed.`;
}

/** The confirmation of Remove, from the menu next to a domain. */
export function RemoveDomain(props: {
  name: string;
  onRemoved: (removal: DomainRemoval) => void;
  onClose: () => void;
}) {
  return (
    <ConfirmDialog
      title={`Remove ${props.name}?`}
      confirmLabel="Remove domain"
      onConfirm={async () => props.onRemoved(await api.removeDomain(props.name))}
      onClose={props.onClose}
    >
      <p>
        Traffic to <strong>{props.name}</strong> stops at once: every instance stops serving it and no
        certificate is issued for it again.
      </p>
    </ConfirmDialog>
  );
}
