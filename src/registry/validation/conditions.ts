import type { FieldError } from '../../machinery/errors.js';
import { regexError } from '../../machinery/name-validation.js';
import { duplicate, invalid, notSupported, num, objs, required, str, tooLong } from './field.js';
import { validateLabelName } from './selector.js';

/**
 * metav1.Condition lists as apimachinery's meta/v1/validation
 * ValidateConditions checks them: unique types, then each condition's type,
 * status, observedGeneration, lastTransitionTime, reason and message.
 */

const STATUSES = ['False', 'True', 'Unknown'];
const MAX_REASON = 1024;
const MAX_MESSAGE = 32 * 1024;
const REASON_FORMAT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const REASON = new RegExp(`^${REASON_FORMAT}$`);
const REASON_ERROR = regexError(
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
  REASON_FORMAT, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB',
);

export function validateMetaConditions(conditions: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objs(conditions).forEach((c, i) => {
    const at = `${path}[${i}]`;
    const type = str(c.type);
    if (seen.has(type)) errs.push(duplicate(`${at}.type`, type));
    else seen.add(type);
    errs.push(...validateLabelName(type, `${at}.type`));
    if (!STATUSES.includes(str(c.status))) errs.push(notSupported(`${at}.status`, str(c.status), STATUSES));
    if (num(c.observedGeneration) < 0) errs.push(invalid(`${at}.observedGeneration`, c.observedGeneration, 'must be greater than or equal to zero'));
    if (str(c.lastTransitionTime) === '') errs.push(required(`${at}.lastTransitionTime`, 'must be set'));
    const reason = str(c.reason);
    if (reason === '') errs.push(required(`${at}.reason`, 'must be set'));
    else {
      if (!REASON.test(reason)) errs.push(invalid(`${at}.reason`, reason, REASON_ERROR));
      if (reason.length > MAX_REASON) errs.push(tooLong(`${at}.reason`, MAX_REASON));
    }
    if (str(c.message).length > MAX_MESSAGE) errs.push(tooLong(`${at}.message`, MAX_MESSAGE));
  });
  return errs;
}
