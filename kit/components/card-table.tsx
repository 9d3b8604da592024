import { type ComponentChildren, Fragment } from 'preact';

/** One column of a CardTable: its header, and what each row shows in it. */
export interface Column<R> {
  /** The header; on a phone, each cell's label too, unless `label` gives a shorter one. */
  header: string;
  /** The cell's label on a phone, where the header is longer than a card needs ("Today" for "Today (of day limit)"). */
  label?: string;
  /**
   * The header is for screen readers only, and the cells go unlabelled: a column of row actions, whose
   * buttons say what they do.
   */
  hidden?: boolean;
  /** The cells' classes (`number`, `nowrap`, `stacked`, `row-actions`…). */
  class?: string;
  cell: (row: R) => ComponentChildren;
}

/**
 * A table that becomes a card a row on a phone (styles/pages.css, `.cards`): each cell then shows its
 * column's label before it, from `data-label`. The first column heads its row (`<th scope="row">`), so that a
 * screen reader names the row by it and a card shows it as its title. The caption is for screen readers.
 */
export function CardTable<R>(props: {
  caption: string;
  /** The first column: what each row is. */
  name: Column<R>;
  columns: readonly Column<R>[];
  rows: readonly R[];
  rowKey: (row: R) => string | number;
  /** The table's own classes: `wide` for a table with many columns, or one its page styles. */
  class?: string;
  /** A row's `data-` attributes, which a script or a test finds it by (`data-request-id`). */
  rowData?: (row: R) => Record<`data-${string}`, string>;
  /** What follows a row in the body: a row of its own whose cell spans the table's `span` columns. */
  after?: (row: R, span: number) => ComponentChildren;
}) {
  const { caption, name, columns, rows, rowKey, rowData, after } = props;
  return (
    <div class="table-scroll cards">
      <table class={props.class}>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {[name, ...columns].map((column) => (
              <th key={column.header} scope="col">
                {column.hidden ? <span class="visually-hidden">{column.header}</span> : column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const cells = (
              <tr key={after ? undefined : rowKey(row)} {...rowData?.(row)}>
                <th scope="row" class={name.class}>
                  {name.cell(row)}
                </th>
                {columns.map((column) => (
                  <td
                    key={column.header}
                    data-label={column.hidden ? undefined : (column.label ?? column.header)}
                    class={column.class}
                  >
                    {column.cell(row)}
                  </td>
                ))}
              </tr>
            );
            return after ? (
              <Fragment key={rowKey(row)}>
                {cells}
                {after(row, columns.length + 1)}
              </Fragment>
            ) : (
              cells
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
