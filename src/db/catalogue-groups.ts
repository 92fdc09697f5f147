/**
 * The catalogue's groups: every group name (also the scope prefixes), with its label and display
 * order, as reviewed data.
 *
 * Names come from the interface; labels are ours (docs/decisions.md, "What Daybook takes from the
 * interface"). Group labels follow the scope table of the v2 document ("Food and drink group",
 * "Health and body group", "Custom tags group"), which names every group (the table of supported
 * attributes abbreviates some). `seedCatalogue` (seed-catalogue.ts) writes them to the database.
 */

/** Every group name, in display order (openapi/common/schemas/GroupName.yaml; also the scope prefix list). */
export const GROUP_NAMES = [
  'activity',
  'productivity',
  'mood',
  'sleep',
  'workouts',
  'events',
  'finance',
  'food',
  'health',
  'location',
  'media',
  'social',
  'weather',
  'symptoms',
  'medication',
  'custom',
] as const;

/** A group name as used in filters and scope names. */
export type GroupName = (typeof GROUP_NAMES)[number];

/** A group as stored in `groups` and embedded in API objects. */
export interface GroupDef {
  readonly name: GroupName;
  readonly label: string;
  readonly priority: number;
}

const GROUP_LABELS: Record<GroupName, string> = {
  activity: 'Activity',
  productivity: 'Productivity',
  mood: 'Mood',
  sleep: 'Sleep',
  workouts: 'Workouts',
  events: 'Events',
  finance: 'Finance',
  food: 'Food and drink',
  health: 'Health and body',
  location: 'Location',
  media: 'Media',
  social: 'Social',
  weather: 'Weather',
  symptoms: 'Symptoms',
  medication: 'Medication',
  custom: 'Custom tags',
};

/** The 16 groups; priority is their position in that list (1-based). */
export const GROUPS: readonly GroupDef[] = GROUP_NAMES.map((name, i) => ({
  name,
  label: GROUP_LABELS[name],
  priority: i + 1,
}));
