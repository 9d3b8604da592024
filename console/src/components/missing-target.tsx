/**
 * Said on the domain pages while the service has no DNS target (`DOMAINS_TARGET`): before a domain is added,
 * so that the operator learns what to set before their customers wonder why nothing verifies.
 */
export function MissingTarget() {
  return (
    <div class="notice warning" role="note" aria-labelledby="missing-target-heading">
      <p id="missing-target-heading">
        <strong>No DNS target is set, so no domain can be verified yet.</strong>
      </p>
      <p>
        The operator sets <code>DOMAINS_TARGET</code> to the name your customers point their CNAME record at
        (such as <code>edge.example.net</code>), and restarts the service. Until then a domain can be added,
        but only its ownership TXT record can be shown.
      </p>
    </div>
  );
}
