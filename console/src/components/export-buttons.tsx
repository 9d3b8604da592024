import { useState } from 'preact/hooks';

export type ExportFormat = 'ndjson' | 'csv';

/** Downloads every row of a filter as NDJSON or CSV, fetched with the session (a plain link lacks its header). */
export function ExportButtons({
  name,
  load,
}: {
  /** The file's name, without its extension. */
  name: string;
  load: (format: ExportFormat) => Promise<Blob>;
}) {
  const [error, setError] = useState<string | null>(null);
  const save = async (format: ExportFormat) => {
    setError(null);
    try {
      const file = await load(format);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(file);
      link.download = `${name}.${format}`;
      document.body.append(link);
      link.click();
      link.remove();
      URL.revokeObjectURL(link.href);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <div class="actions">
      <span class="muted">Export this filter:</span>
      <button type="button" class="button-small" onClick={() => save('ndjson')}>
        NDJSON
      </button>
      <button type="button" class="button-small" onClick={() => save('csv')}>
        CSV
      </button>
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
