import type { FieldError } from '../../machinery/errors.js';
import { labelSelectorMatches } from '../../machinery/selectors.js';
import { validateLabels } from '../validate-meta.js';
import { isDns1123Subdomain, isQualifiedName, isValidLabelValue } from '../../machinery/name-validation.js';
import { forbidden, invalid, isObj, list, obj, objs, required, str, type Obj } from './field.js';

/** metav1 LabelSelector validation and matching (apimachinery meta/v1/validation and labels). */

export function validateLabelName(name: string, field: string): FieldError[] {
  return isQualifiedName(name).map((m) => invalid(field, name, m));
}

export function validateLabelSelector(selector: unknown, field: string): FieldError[] {
  if (!isObj(selector)) return [];
  const errs: FieldError[] = [...validateLabels(selector.matchLabels, `${field}.matchLabels`)];
  objs(selector.matchExpressions).forEach((req, i) => errs.push(...validateRequirement(req, `${field}.matchExpressions[${i}]`, false)));
  return errs;
}

export function validateLabelValue(value: string, field: string): FieldError[] {
  return isValidLabelValue(value).map((m) => invalid(field, value, m));
}

/**
 * A label selector requirement (metav1 ValidateLabelSelectorRequirement) or,
 * with `numeric`, a node selector one (core ValidateNodeSelectorRequirement:
 * Gt and Lt with a single value as well).
 */
function validateRequirement(req: Obj, path: string, numeric: boolean): FieldError[] {
  const errs: FieldError[] = [];
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
    case 'Gt':
    case 'Lt':
      // Label selectors have no numeric operators.
      if (!numeric) errs.push(invalid(`${path}.operator`, str(req.operator), 'not a valid selector operator'));
      else if (values.length !== 1) errs.push(required(`${path}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(invalid(`${path}.operator`, str(req.operator), 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(str(req.key), `${path}.key`));
  values.forEach((v, j) => errs.push(...validateLabelValue(str(v), `${path}.values[${j}]`)));
  return errs;
}

/** core ValidateNodeSelector (label values checked: allowInvalidLabelValueInRequiredNodeAffinity is false). */
export function validateNodeSelector(selector: Obj, path: string): FieldError[] {
  const terms = objs(selector.nodeSelectorTerms);
  if (terms.length === 0) return [required(`${path}.nodeSelectorTerms`, 'must have at least one node selector term')];
  return terms.flatMap((term, i) => {
    const at = `${path}.nodeSelectorTerms[${i}]`;
    return [
      ...objs(term.matchExpressions).flatMap((req, j) => validateRequirement(req, `${at}.matchExpressions[${j}]`, true)),
      ...objs(term.matchFields).flatMap((req, j) => validateNodeFieldSelectorRequirement(req, `${at}.matchFields[${j}]`)),
    ];
  });
}

/** ValidateNodeFieldSelectorRequirement: only metadata.name, with In/NotIn and one value. */
function validateNodeFieldSelectorRequirement(req: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = list(req.values).map((v) => str(v));
  if (req.operator === 'In' || req.operator === 'NotIn') {
    if (values.length !== 1) errs.push(required(`${path}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else errs.push(invalid(`${path}.operator`, str(req.operator), 'not a valid selector operator'));
  if (req.key !== 'metadata.name') errs.push(invalid(`${path}.key`, str(req.key), 'not a valid field selector key'));
  else values.forEach((v, i) => errs.push(...isDns1123Subdomain(v).map((m) => invalid(`${path}.values[${i}]`, v, m))));
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
