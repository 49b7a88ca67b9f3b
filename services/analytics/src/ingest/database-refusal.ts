/**
 * PostgreSQL error classes that blame the data of a statement, not the database's state:
 *   22 data exception (NUL in text, bad encoding, a value out of range or too long),
 *   23 integrity constraint violation (not null, check, foreign key, unique),
 *   54 program limit exceeded (an index row or value too large).
 * Storing the same rows again fails the same way, so retrying the batch would wedge its
 * partition; splitting it finds the rows to blame. A batch that only fails for its size (54)
 * stores fine once split, and a row is blamed only when it fails alone.
 * Every other failure is the database's state, and the batch is retried as it is: a lost or
 * refused connection (class 08, or no SQLSTATE at all), shutdown or cancel (57: 57P01, a
 * statement timeout), too many connections, disk or memory (53), serialization failures and
 * deadlocks (40), and also errors of our own making (42: a missing table before migrations),
 * which must not throw events away.
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
