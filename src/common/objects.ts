/**
 * Object helpers the readers share.
 *
 * @module
 */

/**
 * Sets an own enumerable property, even `__proto__` (as `JSON.parse`
 * does): the object's prototype never changes.
 *
 * @param obj the object
 * @param key the property name
 * @param value its value
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}
