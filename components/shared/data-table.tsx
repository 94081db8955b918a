/**
 * The settings lists' table shell: a header row (an `actions` column is labelled for screen readers
 * only) and, when there are no rows, one full-width row saying so.
 */
export function DataTable({
  columns,
  actions = false,
  empty,
  className = "card relative overflow-x-auto",
  children,
}: {
  columns: readonly string[];
  /** Adds a last, visually unlabelled "Actions" column. */
  actions?: boolean;
  /** Shown as the only row when given (pass it only once the list has loaded empty). */
  empty?: React.ReactNode;
  className?: string;
  children?: React.ReactNode;
}) {
  const span = columns.length + (actions ? 1 : 0);
  return (
    <div className={className}>
      <table className="table">
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c}>{c}</th>
            ))}
            {actions && (
              <th>
                <span className="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {empty ? (
            <tr>
              <td colSpan={span} className="py-8 text-center text-muted">
                {empty}
              </td>
            </tr>
          ) : (
            children
          )}
        </tbody>
      </table>
    </div>
  );
}
