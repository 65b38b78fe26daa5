/**
 * The cron schedule parser kube validates CronJob schedules with
 * (robfig/cron v3 ParseStandard: five fields or an @descriptor), reduced to
 * "parse or explain why not". The error strings are robfig's, which kube
 * reports verbatim as the Invalid detail.
 */

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];

class CronError extends Error {}

/** Go's strconv.Atoi, with its error text. */
function atoi(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) throw new CronError(`failed to parse int from ${s}: strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = Number.parseInt(s, 10);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 2 ** 63 - 1) throw new CronError(`failed to parse int from ${s}: strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  return n;
}

function mustParseInt(s: string): number {
  const n = atoi(s);
  if (n < 0) throw new CronError(`negative number (${n}) not allowed: ${s}`);
  return n;
}

function parseIntOrName(s: string, names?: Record<string, number>): number {
  const named = names?.[s.toLowerCase()];
  return named !== undefined ? named : mustParseInt(s);
}

function parseRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r.names);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    // "N/step" means "N-max/step".
    if (singleDigit) end = r.max;
  } else if (rangeAndStep.length > 2) {
    throw new CronError(`too many slashes: ${expr}`);
  }
  if (start < r.min) throw new CronError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new CronError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
}

const DURATION_UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, 'μs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Go's time.ParseDuration, enough to accept or reject "@every <duration>". */
function parseDuration(s: string): void {
  const fail = (): never => {
    throw new CronError(`failed to parse duration @every ${s}: time: invalid duration ${JSON.stringify(s)}`);
  };
  let rest = s.replace(/^[+-]/, '');
  if (rest === '0') return;
  if (rest === '') fail();
  while (rest.length > 0) {
    const m = /^(\d*\.?\d*)([a-zµμ]+)/.exec(rest);
    if (!m || m[1] === '' || m[1] === '.') fail();
    if (!(m![2]! in DURATION_UNITS)) throw new CronError(`failed to parse duration @every ${s}: time: unknown unit ${JSON.stringify(m![2])} in duration ${JSON.stringify(s)}`);
    rest = rest.slice(m![0].length);
  }
}

const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** undefined when the schedule parses; otherwise robfig/cron's error message. */
export function cronScheduleError(spec: string): string | undefined {
  try {
    if (spec.length === 0) throw new CronError('empty spec string');
    let s = spec;
    if (s.startsWith('TZ=') || s.startsWith('CRON_TZ=')) {
      const i = s.indexOf(' ');
      const tz = s.slice(s.indexOf('=') + 1, i < 0 ? undefined : i);
      if (!isKnownTimeZone(tz)) throw new CronError(`provided bad location ${tz}: unknown time zone ${tz}`);
      s = i < 0 ? '' : s.slice(i).trim();
    }
    if (s.startsWith('@')) {
      if (DESCRIPTORS.has(s)) return undefined;
      if (s.startsWith('@every ')) {
        parseDuration(s.slice('@every '.length));
        return undefined;
      }
      throw new CronError(`unrecognized descriptor: ${s}`);
    }
    const fields = s.split(/\s+/).filter((f) => f.length > 0);
    if (fields.length !== 5) throw new CronError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
    fields.forEach((f, i) => {
      for (const part of f.split(',')) parseRange(part, FIELDS[i]!);
    });
    return undefined;
  } catch (e) {
    if (e instanceof CronError) return e.message;
    throw e;
  }
}

let zones: Set<string> | undefined;

/** IANA zone names as time.LoadLocation accepts them ("UTC" included). */
export function isKnownTimeZone(tz: string): boolean {
  if (tz === 'UTC' || tz === '') return true;
  if (!zones) {
    const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
    zones = new Set(intl.supportedValuesOf ? intl.supportedValuesOf('timeZone') : []);
  }
  if (zones.has(tz)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
