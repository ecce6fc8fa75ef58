// Listing content (the sections of a listing's `capabilities.pms`) and photos: value shapes, and
// which sections a listing's PMS can store (docs/api.md, "Writes that a PMS cannot perform").
// No I/O here.
import {
  CONTENT_LANGUAGE_PATTERN,
  HOUSE_RULE_SWITCHES,
  MAX_AMENITIES,
  MAX_AMENITY_LENGTH,
  MAX_LISTING_DESCRIPTION_LENGTH,
  MAX_HOUSE_RULES_LENGTH,
  MAX_PHOTO_CAPTION_LENGTH,
  MAX_PHOTO_URL_LENGTH,
  MAX_PHOTOS,
} from '@vrp/api-model';
import { CONTENT_SECTIONS, WRITES, supports, type ContentSection } from '@vrp/pms-matrix';

export { CONTENT_SECTIONS };
export type SectionName = ContentSection;

/** Parsed section values by name; only the sections present. */
export type SectionValues = Partial<Record<SectionName, unknown>>;

type Problems = Record<string, string>;

// The limits and patterns are the API's vocabulary (@vrp/api-model), which the gateway checks too.
export const MAX_DESCRIPTION = MAX_LISTING_DESCRIPTION_LENGTH;
export const MAX_HOUSE_RULES = MAX_HOUSE_RULES_LENGTH;
export { HOUSE_RULE_SWITCHES, MAX_AMENITIES };
/** BCP 47 language tags as channels use them ('fr', 'pt-BR', 'es-419', 'zh-Hant'). */
const LANGUAGE_TAG = CONTENT_LANGUAGE_PATTERN;

export function isSectionName(name: string): name is SectionName {
  return (CONTENT_SECTIONS as readonly string[]).includes(name);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textProblem(value: unknown, max: number, required: boolean): string | null {
  if (typeof value !== 'string') return 'must be a string';
  if (required && value.trim() === '') return 'must not be empty';
  if (value.length > max) return `must be at most ${max} characters`;
  return null;
}

/** Problems of one section's value, keyed by field path under `sections.<name>`. */
export function sectionProblems(name: SectionName, value: unknown): Problems {
  const at = `sections.${name}`;
  const problems: Problems = {};
  const put = (path: string, problem: string | null) => {
    if (problem) problems[path] = problem;
  };
  switch (name) {
    case 'description':
      put(at, textProblem(value, MAX_DESCRIPTION, true));
      break;
    case 'house_rules':
      // May be empty: that is how an owner clears the rules.
      put(at, textProblem(value, MAX_HOUSE_RULES, false));
      break;
    case 'amenities': {
      if (!Array.isArray(value)) {
        put(at, 'must be an array of strings');
        break;
      }
      if (value.length > MAX_AMENITIES) {
        put(at, `must list at most ${MAX_AMENITIES} amenities`);
        break;
      }
      const seen = new Set<string>();
      value.forEach((item: unknown, i) => {
        if (typeof item !== 'string' || item.trim() === '') put(`${at}[${i}]`, 'must be a non-empty string');
        else if (item.length > MAX_AMENITY_LENGTH) put(`${at}[${i}]`, `must be at most ${MAX_AMENITY_LENGTH} characters`);
        else if (seen.has(item)) put(`${at}[${i}]`, `'${item}' is listed twice`);
        else seen.add(item);
      });
      break;
    }
    case 'house_rule_switches': {
      if (!isObject(value)) {
        put(at, `must be an object of booleans among ${HOUSE_RULE_SWITCHES.join(', ')}`);
        break;
      }
      for (const [key, flag] of Object.entries(value)) {
        if (!(HOUSE_RULE_SWITCHES as readonly string[]).includes(key))
          put(`${at}.${key}`, `is not a house-rule switch (known: ${HOUSE_RULE_SWITCHES.join(', ')})`);
        else if (typeof flag !== 'boolean') put(`${at}.${key}`, 'must be true or false');
      }
      break;
    }
    case 'rooms': {
      if (!isObject(value)) {
        put(at, 'must be an object {bedrooms, bathrooms, beds}');
        break;
      }
      for (const key of Object.keys(value)) {
        if (!['bedrooms', 'bathrooms', 'beds'].includes(key)) put(`${at}.${key}`, 'is not a room count (known: bedrooms, bathrooms, beds)');
      }
      for (const key of ['bedrooms', 'beds'] as const) {
        const n = value[key];
        if (n === undefined) put(`${at}.${key}`, 'is required');
        else if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) put(`${at}.${key}`, 'must be a non-negative integer');
      }
      const baths = value.bathrooms;
      if (baths === undefined) put(`${at}.bathrooms`, 'is required');
      // Half bathrooms (a toilet without a shower) are how the industry counts them.
      else if (typeof baths !== 'number' || !Number.isInteger(baths * 2) || baths < 0) put(`${at}.bathrooms`, 'must be a non-negative multiple of 0.5');
      break;
    }
    case 'translations': {
      if (!isObject(value)) {
        put(at, 'must be an object of language code -> {description?, house_rules?}, e.g. {"fr": {"description": "..."}}');
        break;
      }
      for (const [lang, entry] of Object.entries(value)) {
        const path = `${at}.${lang}`;
        if (!LANGUAGE_TAG.test(lang)) {
          put(path, "is not a language code (e.g. 'fr', 'pt-BR')");
          continue;
        }
        if (!isObject(entry)) {
          put(path, 'must be an object {description?, house_rules?}');
          continue;
        }
        const keys = Object.keys(entry);
        if (keys.length === 0) put(path, 'must contain description or house_rules');
        for (const key of keys) {
          if (key === 'description') put(`${path}.description`, textProblem(entry.description, MAX_DESCRIPTION, true));
          else if (key === 'house_rules') put(`${path}.house_rules`, textProblem(entry.house_rules, MAX_HOUSE_RULES, false));
          else put(`${path}.${key}`, 'is not translatable (known: description, house_rules)');
        }
      }
      break;
    }
  }
  return problems;
}

/**
 * Decodes the JSON-encoded sections of a request. Unknown names, invalid JSON, a section given
 * twice and ill-shaped values are all reported at once, keyed `sections.<name>[...]`.
 */
export function parseSections(input: readonly { name: string; valueJson: string }[]): { values: SectionValues; problems: Problems } {
  const values: SectionValues = {};
  const problems: Problems = {};
  const seen = new Set<string>();
  for (const { name, valueJson } of input) {
    const at = `sections.${name}`;
    if (seen.has(name)) {
      problems[at] = 'is given more than once';
      continue;
    }
    seen.add(name);
    if (!isSectionName(name)) {
      problems[at] = `is not a content section (known: ${CONTENT_SECTIONS.join(', ')})`;
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(valueJson);
    } catch {
      problems[at] = 'is not valid JSON';
      continue;
    }
    const found = sectionProblems(name, value);
    if (Object.keys(found).length > 0) Object.assign(problems, found);
    else values[name] = value;
  }
  return { values, problems };
}

/** The given sections in the catalogue order of CONTENT_SECTIONS (stable responses). */
export function inSectionOrder(values: SectionValues): [SectionName, unknown][] {
  const out: [SectionName, unknown][] = [];
  for (const name of CONTENT_SECTIONS) if (name in values) out.push([name, values[name]]);
  return out;
}

export interface PmsContentSplit {
  /** Sections the PMS can store (all of them without a PMS). */
  applied: SectionName[];
  /** Sections the PMS cannot store; they are refused, never stored here. */
  deferred: SectionName[];
  errors: { section: SectionName; message: string }[];
}

/** The content of a listing as stored. */
export interface StoredContent {
  sections: SectionValues;
  /** null when nothing was ever stored for the listing. */
  updatedAt: Date | null;
  /** +1 on every write; 0 while nothing was ever stored. */
  version: number;
}

/** The content of one listing as stored here. */
export interface ListingContent {
  listingId: string;
  content: StoredContent;
}

/**
 * What a PUT of content did: the split the capability matrix decided (sections applied, deferred
 * and why), the listing's PMS ('' without one) and the whole content after the write.
 */
export interface ContentPutOutcome extends ListingContent, PmsContentSplit {
  pmsProvider: string;
}

/**
 * Splits sections by what the listing's PMS can store, from the capability matrix alone, so
 * a refusal is decided before anything is sent to the PMS (docs/api.md). No PMS ('') stores all.
 */
export function splitByPms(provider: string, names: readonly SectionName[]): PmsContentSplit {
  const ordered = CONTENT_SECTIONS.filter((n) => names.includes(n));
  const applied = ordered.filter((n) => supports(provider, `content.${n}`));
  const deferred = ordered.filter((n) => !supports(provider, `content.${n}`));
  return {
    applied,
    deferred,
    errors: deferred.map((section) => ({
      section,
      message: `${provider} cannot ${WRITES[`content.${section}`]} through its API; make this change in ${provider}.`,
    })),
  };
}

/** What the PMS cannot do, in words, for a pms_write_unsupported refusing `deferred`. */
export function refusedWrites(deferred: readonly SectionName[]): string {
  return deferred.map((s) => WRITES[`content.${s}`]).join(' or ');
}

// ---- photos ----

/**
 * A photo as a listing shows it (the listing is the one the caller named). Its JSON is what
 * addPhoto keeps with the Idempotency-Key: the fields of the gRPC Photo, which earlier releases
 * kept there, so their keys replay unchanged.
 */
export interface Photo {
  id: string;
  url: string;
  caption: string;
  position: number;
  createdAt: Date;
}

/** The photo of a stored photo record (which also names its listing), and nothing else. */
export const photoOf = (p: Photo): Photo => ({ id: p.id, url: p.url, caption: p.caption, position: p.position, createdAt: p.createdAt });

export { MAX_PHOTOS };
export const MAX_PHOTO_URL = MAX_PHOTO_URL_LENGTH;
export const MAX_CAPTION = MAX_PHOTO_CAPTION_LENGTH;

/** Problems of a photo to add: channels fetch photos themselves, so only public https URLs. */
export function photoProblems(url: string, caption: string): Problems {
  const problems: Problems = {};
  if (!url) problems.url = 'is required';
  else if (url.length > MAX_PHOTO_URL) problems.url = `must be at most ${MAX_PHOTO_URL} characters`;
  else {
    let parsed: URL | null = null;
    try {
      parsed = new URL(url);
    } catch {
      parsed = null;
    }
    if (!parsed || parsed.protocol !== 'https:' || !parsed.hostname) problems.url = 'must be an absolute https:// URL';
  }
  if (caption.length > MAX_CAPTION) problems.caption = `must be at most ${MAX_CAPTION} characters`;
  return problems;
}
