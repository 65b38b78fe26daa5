import type { FieldError } from '../../machinery/errors.js';
import { labelSelectorMatches } from '../../machinery/selectors.js';
import { validateLabels } from '../validate-meta.js';
import { isQualifiedName, isValidLabelValue } from '../../machinery/name-validation.js';
import { forbidden, invalid, isObj, list, obj, objs, required, str, type Obj } from './field.js';

/** metav1 LabelSelector validation and matching (apimachinery meta/v1/validation and labels). */

export function validateLabelName(name: string, field: string): FieldError[] {
  return isQualifiedName(name).map((m) => invalid(field, name, m));
}

export function validateLabelSelector(selector: unknown, field: string): FieldError[] {
  if (!isObj(selector)) return [];
  const errs: FieldError[] = [...validateLabels(selector.matchLabels, `${field}.matchLabels`)];
  objs(selector.matchExpressions).forEach((req, i) => {
    const path = `${field}.matchExpressions[${i}]`;
    const values = list(req.values);
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(invalid(`${path}.operator`, req.operator ?? '', 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(str(req.key), `${path}.key`));
    values.forEach((v, j) => {
      for (const m of isValidLabelValue(str(v))) errs.push(invalid(`${path}.values[${j}]`, v, m));
    });
  });
  return errs;
}

/** True when the selector selects nothing in particular (no labels, no expressions). */
export function selectorIsEmpty(selector: unknown): boolean {
  const s = obj(selector);
  return Object.keys(obj(s.matchLabels)).length === 0 && list(s.matchExpressions).length === 0;
}

/**
 * labels.Selector.Matches for a metav1.LabelSelector. Callers check for an
 * empty selector first; a missing one reads as empty here and selects
 * everything.
 */
export function selectorMatches(selector: unknown, labels: unknown): boolean {
  return labelSelectorMatches(obj(selector), obj(labels) as Record<string, string>);
}

/** A map selector (Service, ReplicationController) matches when every pair is present. */
export function mapSelectorMatches(selector: Obj, labels: unknown): boolean {
  const l = obj(labels);
  return Object.entries(selector).every(([k, v]) => l[k] === v);
}
