/** Typed fields of a posted form: numbers and choices, INVALID_INPUT when malformed. */
import { SatchelError } from '@satchel/core';

/** A positive integer field, or undefined when left empty. */
export function intField(form: Record<string, string>, name: string): number | undefined {
  const raw = (form[name] ?? '').trim();
  if (raw === '') return undefined;
  if (!/^\d{1,15}$/.test(raw)) {
    throw new SatchelError('INVALID_INPUT', `${name} must be a whole number`, { field: name });
  }
  return Number(raw);
}

/** A required text field (trimmed); INVALID_INPUT when empty. */
export function textField(form: Record<string, string>, name: string): string {
  const value = (form[name] ?? '').trim();
  if (value === '') {
    throw new SatchelError('INVALID_INPUT', `${name} is required`, { field: name });
  }
  return value;
}

/** One of `choices`, or undefined when left empty; INVALID_INPUT otherwise. */
export function choiceField<T extends string>(
  form: Record<string, string>,
  name: string,
  choices: readonly T[],
): T | undefined {
  const raw = form[name] ?? '';
  if (raw === '') return undefined;
  const found = choices.find((c) => c === raw);
  if (found === undefined) {
    throw new SatchelError('INVALID_INPUT', `${name} must be one of ${choices.join(', ')}`, {
      field: name,
    });
  }
  return found;
}

/** "in 3 min 20 s" / "expired": how long until `iso`, from `now`. */
export function remaining(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  if (seconds <= 0) return 'expired';
  if (seconds < 60) return `in ${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `in ${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `in ${hours} h ${minutes % 60} min` : `in ${Math.floor(hours / 24)} days`;
}
