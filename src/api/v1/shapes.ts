/**
 * Version 1's object shapes, built from what the domain functions return (the same rows and objects
 * version 2 shapes differently): the User, today's groups, the V1Attribute and the V1Insight.
 */
import type { components } from '../../../generated/types/v1';
import { VALUE_TYPE_DESCRIPTIONS, type ValueType } from '../../db/catalogue-value-types';
import type { GroupName } from '../../db/catalogue-groups';
import type { AttributeRowWithValues } from '../../domain/tracking/attributes';
import type { InsightEntry } from '../../domain/derived/insights';
import { localDateTime } from '../../domain/time';
import type { User as UserRecord } from '../../domain/identity/users';

type Schemas = components['schemas'];
export type V1User = Schemas['User'];
export type TodayGroup = Schemas['TodayGroup'];
export type V1Attribute = Schemas['V1Attribute'];
export type V1Insight = Schemas['V1Insight'];

/**
 * Version 1's single `imperial_units` switch, derived from the separate flags: true when the person
 * prefers both miles (`imperial_distance`) and pounds (`imperial_weight`), the units the old switch
 * governed; the other flags are reported on their own.
 */
export function imperialUnits(user: Pick<UserRecord, 'imperial_distance' | 'imperial_weight'>): boolean {
  return user.imperial_distance && user.imperial_weight;
}

/** The User object; `attributes` is empty except in the caller's own today. */
export function userObject(user: UserRecord, now: Date, attributes: TodayGroup[] = []): V1User {
  return {
    id: Number(user.id),
    username: user.username,
    first_name: user.first_name,
    last_name: user.last_name,
    bio: user.bio,
    url: user.url,
    avatar: user.avatar,
    timezone: user.timezone,
    local_time: localDateTime(now, user.timezone),
    private: user.private,
    imperial_units: imperialUnits(user),
    imperial_distance: user.imperial_distance,
    imperial_weight: user.imperial_weight,
    imperial_energy: user.imperial_energy,
    imperial_liquid: user.imperial_liquid,
    imperial_temperature: user.imperial_temperature,
    attributes,
  };
}

type Row = AttributeRowWithValues['row'];

/** The owning service as version 1 names it: the service name, or empty when no service owns the attribute. */
function serviceName(row: Row): string {
  return row.service_name ?? '';
}

/**
 * Today's groups from attributes that each carry one value (today's): consecutive rows of a group
 * (the list order is group priority, attribute priority, name) become one group.
 */
export function todayGroups(attributes: AttributeRowWithValues[]): TodayGroup[] {
  const groups: TodayGroup[] = [];
  for (const { row, values } of attributes) {
    let group = groups[groups.length - 1];
    if (!group || group.group !== row.group_name) {
      group = { group: row.group_name as GroupName, label: row.group_label, priority: row.group_priority, items: [] };
      groups.push(group);
    }
    group.items.push({
      attribute: row.name,
      label: row.label,
      value: values[0]?.value ?? null,
      service: serviceName(row),
      priority: row.priority,
      private: row.private,
      value_type: row.value_type as ValueType,
      value_type_description: VALUE_TYPE_DESCRIPTIONS[row.value_type],
    });
  }
  return groups;
}

/** A V1Attribute: the attribute with a value (or null) for every day of the range. */
export function v1Attribute({ row, values }: AttributeRowWithValues): V1Attribute {
  return {
    attribute: row.name,
    label: row.label,
    group: { name: row.group_name as GroupName, label: row.group_label, priority: row.group_priority },
    service: serviceName(row),
    private: row.private,
    values,
  };
}

/** A V1Insight: the v2 insight without the attribute's value type fields, plus value, value2 and comment. */
export function v1Insight({ insight, figures }: InsightEntry): V1Insight {
  const { value_type: _type, value_type_description: _description, ...attribute } = insight.type.attribute;
  return {
    created: insight.created,
    target_date: insight.target_date,
    type: { ...insight.type, attribute },
    html: insight.html,
    text: insight.text,
    value: figures.value,
    value2: figures.value2,
    comment: figures.comment,
  };
}
