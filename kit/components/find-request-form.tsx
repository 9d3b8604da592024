import type { ButtonHTMLAttributes, InputHTMLAttributes } from 'preact';

/**
 * Find a request by its id (an Error body's `requestId`, an answer's `X-Request-Id`): a field and Find, which
 * hands on the id pasted, trimmed. The console opens that request's page; the key page looks among the key's.
 */
export function FindRequestForm(props: {
  /** The form's name, for a screen reader. */
  label: string;
  class: string;
  /** The field's id, and what it shows while empty. */
  fieldId: string;
  placeholder: string;
  /** More of the field's attributes: a class, whether it is invalid, what describes it. */
  field?: InputHTMLAttributes<HTMLInputElement>;
  /** Find's class, and whether it waits for an answer. */
  find?: ButtonHTMLAttributes<HTMLButtonElement>;
  onFind: (id: string) => void;
}) {
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    props.onFind(String(form.get('requestId') ?? '').trim());
  };
  return (
    <search>
      <form class={props.class} aria-label={props.label} onSubmit={submit}>
        <div>
          <label for={props.fieldId}>Request id</label>
          <input
            id={props.fieldId}
            name="requestId"
            placeholder={props.placeholder}
            autoComplete="off"
            spellcheck={false}
            {...props.field}
          />
        </div>
        <div class="actions">
          <button type="submit" {...props.find}>
            Find
          </button>
        </div>
      </form>
    </search>
  );
}
