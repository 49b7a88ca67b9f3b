/**
 * SQLSTATE classes that blame a statement's data (22 data exception, 23 integrity, 54 program
 * limit): a retry would fail alike and wedge the partition, so the batch is split until the
 * rows to blame are alone. Any other class (08, 40, 42, 53, 57...) is the database's state:
 * retried as it is, never thrown away.
 */
const DATA_CLASSES = /^(22|23|54)[0-9A-Z]{3}$/;

interface DriverError {
  code?: unknown;
  message?: unknown;
  constraint?: unknown;
}

/**
 * Why PostgreSQL refused a statement for its data ("database: <its message> (SQLSTATE
 * <code>)"), or undefined when the failure is not the data's (then: retry).
 */
export function dataRefusal(error: unknown): string | undefined {
  if (!error || typeof error !== 'object') return undefined;
  // TypeORM wraps the driver's error; node-postgres' carries the SQLSTATE as `code`.
  const driver = ((error as { driverError?: unknown }).driverError ?? error) as DriverError;
  if (typeof driver.code !== 'string' || !DATA_CLASSES.test(driver.code)) return undefined;
  const message = typeof driver.message === 'string' ? driver.message : 'refused';
  return `database: ${message} (SQLSTATE ${driver.code})`;
}
