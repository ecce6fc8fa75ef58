// Pure rules of a listing's content: section shapes, photos, and what a PMS can store.
import { parseSections, photoProblems, sectionProblems, splitByPms } from './content';

const section = (name: string, value: unknown) => ({ name, valueJson: JSON.stringify(value) });

describe('content rules (pure)', () => {
  it('validates the shape of each section, naming the offending field', () => {
    expect(sectionProblems('description', 'A sunny flat')).toEqual({});
    expect(Object.keys(sectionProblems('description', '  '))).toEqual(['sections.description']);
    expect(Object.keys(sectionProblems('description', 'x'.repeat(10_001)))).toEqual(['sections.description']);
    expect(sectionProblems('house_rules', '')).toEqual({});
    expect(Object.keys(sectionProblems('house_rules', 'x'.repeat(5_001)))).toEqual(['sections.house_rules']);
    expect(Object.keys(sectionProblems('amenities', ['wifi', 'wifi', '']))).toEqual(['sections.amenities[1]', 'sections.amenities[2]']);
    expect(
      Object.keys(
        sectionProblems(
          'amenities',
          Array.from({ length: 101 }, (_, i) => `a${i}`),
        ),
      ),
    ).toEqual(['sections.amenities']);
    // An amenity is at most 100 characters, as the gateway checks.
    expect(sectionProblems('amenities', ['wifi', 'x'.repeat(101)])).toEqual({ 'sections.amenities[1]': 'must be at most 100 characters' });
    expect(sectionProblems('house_rule_switches', { petsAllowed: true, smokingAllowed: false })).toEqual({});
    expect(Object.keys(sectionProblems('house_rule_switches', { petsAllowed: 'yes', hotTub: true }))).toEqual([
      'sections.house_rule_switches.petsAllowed',
      'sections.house_rule_switches.hotTub',
    ]);
    expect(sectionProblems('rooms', { bedrooms: 2, bathrooms: 1.5, beds: 3 })).toEqual({});
    expect(Object.keys(sectionProblems('rooms', { bedrooms: 1.5, bathrooms: 1.3, beds: -1 }))).toEqual([
      'sections.rooms.bedrooms',
      'sections.rooms.beds',
      'sections.rooms.bathrooms',
    ]);
    expect(sectionProblems('translations', { fr: { description: 'Appartement' }, 'pt-BR': { house_rules: 'Sem festas' } })).toEqual({});
    expect(Object.keys(sectionProblems('translations', { french: { description: 'x' }, de: { title: 'x' }, es: {} }))).toEqual([
      'sections.translations.french',
      'sections.translations.de.title',
      'sections.translations.es',
    ]);
  });

  it('reports unknown names, invalid JSON and repeated sections', () => {
    const { problems } = parseSections([
      { name: 'pool', valueJson: '"yes"' },
      { name: 'description', valueJson: '{not json' },
      section('amenities', ['wifi']),
      section('amenities', ['pool']),
    ]);
    expect(Object.keys(problems).sort()).toEqual(['sections.amenities', 'sections.description', 'sections.pool']);
  });

  it('splits sections by what the PMS can store, from the capability matrix', () => {
    expect(splitByPms('', ['rooms', 'description'])).toEqual({ applied: ['description', 'rooms'], deferred: [], errors: [] });
    const g = splitByPms('PMS-G', ['rooms', 'description', 'translations']);
    expect(g.applied).toEqual(['description']);
    expect(g.deferred).toEqual(['rooms', 'translations']);
    expect(splitByPms('PMS-F', ['house_rule_switches', 'rooms']).deferred).toEqual(['house_rule_switches']);
  });

  it('accepts only https photo URLs within the limits', () => {
    expect(photoProblems('https://cdn.example.com/a.jpg', 'Living room')).toEqual({});
    expect(Object.keys(photoProblems('http://cdn.example.com/a.jpg', ''))).toEqual(['url']);
    expect(Object.keys(photoProblems('cdn.example.com/a.jpg', ''))).toEqual(['url']);
    expect(Object.keys(photoProblems(`https://cdn.example.com/${'a'.repeat(2048)}`, ''))).toEqual(['url']);
    expect(Object.keys(photoProblems('https://cdn.example.com/a.jpg', 'c'.repeat(501)))).toEqual(['caption']);
  });
});
