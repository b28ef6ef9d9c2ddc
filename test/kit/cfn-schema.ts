/**
 * A CloudFormation template checked against CloudFormation's own resource schemas, as the AWS CDK team publishes
 * them (`@aws-cdk/aws-service-spec`: every resource type, its properties, nested types, required fields and
 * attributes, offline). What it checks: the template's sections and each resource's keys; every resource type exists;
 * every property, nested ones included, is known and of its type (and among the allowed values where the schema
 * lists them); every required property is there; every `Ref`, `Fn::GetAtt`, `Fn::Sub` variable, `DependsOn` and
 * `Condition` names something of the template or a pseudo parameter, and a `Fn::GetAtt` an attribute its resource has.
 *
 * Intrinsic functions are accepted where CloudFormation accepts them: one giving a string (`Ref`, `Fn::Join`,
 * `Fn::Sub`, …) where a scalar is expected, one giving a list (`Fn::Split`, `Fn::GetAZs`, a list parameter) where an
 * array is, `Fn::If` wherever its branches fit, and anything inside a free-form JSON property (a policy document).
 * Scalars are read as CloudFormation reads them (cfn-lint's default, not its strict mode): a number or boolean is a
 * string where a string is expected, and "5" or "true" is an integer or boolean.
 *
 * What it cannot see is what only AWS knows: IAM action names, quotas, a name already taken, a runtime's support
 * (docs/operations.md, "Deploying: what is proven before AWS").
 */
import { readFileSync } from 'node:fs';
import { loadAwsServiceSpecSync } from '@aws-cdk/aws-service-spec';
import type { PropertyType, Resource, ResourceProperties, SpecDatabase } from '@aws-cdk/service-spec-types';

/** The outcome: how many checks were made, and each failure naming its resource and property. */
export interface SchemaReport {
  checks: number;
  failures: string[];
}

const SECTIONS = [
  'AWSTemplateFormatVersion',
  'Description',
  'Metadata',
  'Parameters',
  'Rules',
  'Mappings',
  'Conditions',
  'Transform',
  'Resources',
  'Outputs',
];
/** CloudFormation's own quota of resources per stack (its documented limits; the account's quotas are AWS's to tell). */
const MAX_RESOURCES = 500;
const RESOURCE_KEYS = [
  'Type',
  'Properties',
  'DependsOn',
  'Condition',
  'Metadata',
  'DeletionPolicy',
  'UpdateReplacePolicy',
  'CreationPolicy',
  'UpdatePolicy',
];
const DELETION_POLICIES = ['Delete', 'Retain', 'RetainExceptOnCreate', 'Snapshot'];
const PSEUDO_PARAMETERS = [
  'AWS::AccountId',
  'AWS::NotificationARNs',
  'AWS::NoValue',
  'AWS::Partition',
  'AWS::Region',
  'AWS::StackId',
  'AWS::StackName',
  'AWS::URLSuffix',
];
/** What an intrinsic function gives: a string (or number), a list, or whatever its arguments hold. */
type Gives = 'scalar' | 'list' | 'any';
const GIVES: Record<string, Gives> = {
  Ref: 'scalar',
  'Fn::GetAtt': 'scalar',
  'Fn::Join': 'scalar',
  'Fn::Sub': 'scalar',
  'Fn::Base64': 'scalar',
  'Fn::ImportValue': 'scalar',
  'Fn::Length': 'scalar',
  'Fn::ToJsonString': 'scalar',
  'Fn::Split': 'list',
  'Fn::GetAZs': 'list',
  'Fn::Cidr': 'list',
  'Fn::Select': 'any',
  'Fn::FindInMap': 'any',
  'Fn::If': 'any',
};
const SCALARS = new Set(['string', 'number', 'integer', 'boolean', 'date-time']);

let loaded: SpecDatabase | undefined;
/** The published schemas (about half a second to load; kept for the process). */
function serviceSpec(): SpecDatabase {
  loaded ??= loadAwsServiceSpecSync();
  return loaded;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const intrinsicName = (value: unknown): string | undefined => {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::')) ? keys[0] : undefined;
};

/** Checks `template` against the schemas of `db`. */
export function validateTemplate(template: unknown, db: SpecDatabase = serviceSpec()): SchemaReport {
  return new TemplateCheck(db, template).run();
}

class TemplateCheck {
  private checks = 0;
  private failures: string[] = [];
  private readonly resourceTypes = new Map<string, Resource>();
  private readonly template: Record<string, any>;
  private readonly resources: Record<string, any>;
  private readonly parameters: Record<string, any>;

  constructor(
    private readonly db: SpecDatabase,
    template: unknown,
  ) {
    for (const resource of db.all('resource')) this.resourceTypes.set(resource.cloudFormationType, resource);
    this.template = isObject(template) ? template : {};
    this.resources = isObject(this.template.Resources) ? this.template.Resources : {};
    this.parameters = isObject(this.template.Parameters) ? this.template.Parameters : {};
  }

  run(): SchemaReport {
    const count = Object.keys(this.resources).length;
    this.expect(count > 0 && count <= MAX_RESOURCES, `the template has ${count} resources (CloudFormation takes 1 to ${MAX_RESOURCES})`);
    for (const section of Object.keys(this.template))
      this.expect(SECTIONS.includes(section), `${section} is not a section of a template (known: ${SECTIONS.join(', ')})`);
    for (const [id, resource] of Object.entries(this.resources)) this.resource(id, resource);
    for (const [id, output] of Object.entries<any>(isObject(this.template.Outputs) ? this.template.Outputs : {})) {
      this.expect(isObject(output) && 'Value' in output, `output ${id} has no Value`);
      if (isObject(output)) this.freeForm(`output ${id}`, output);
    }
    for (const [id, condition] of Object.entries(isObject(this.template.Conditions) ? this.template.Conditions : {}))
      this.freeForm(`condition ${id}`, condition);
    return { checks: this.checks, failures: this.failures };
  }

  private expect(ok: boolean, failure: string): boolean {
    this.checks++;
    if (!ok) this.failures.push(failure);
    return ok;
  }

  private resource(id: string, resource: unknown): void {
    if (!this.expect(isObject(resource), `${id} is not an object`) || !isObject(resource)) return;
    this.expect(/^[A-Za-z0-9]+$/.test(id), `${id}: a logical id is letters and digits only`);
    for (const key of Object.keys(resource))
      this.expect(RESOURCE_KEYS.includes(key), `${id}.${key} is not a key of a resource (known: ${RESOURCE_KEYS.join(', ')})`);
    for (const key of ['DeletionPolicy', 'UpdateReplacePolicy'])
      if (key in resource)
        this.expect(
          DELETION_POLICIES.includes(resource[key] as string),
          `${id}.${key} ${JSON.stringify(resource[key])} is not one of ${DELETION_POLICIES.join(', ')}`,
        );
    if ('DependsOn' in resource) {
      const names = Array.isArray(resource.DependsOn) ? resource.DependsOn : [resource.DependsOn];
      for (const name of names)
        this.expect(
          typeof name === 'string' && name !== id && name in this.resources,
          `${id}.DependsOn names ${JSON.stringify(name)}, not another resource of the template`,
        );
    }
    if ('Condition' in resource) this.condition(`${id}.Condition`, resource.Condition);
    const type = resource.Type;
    if (typeof type === 'string' && (type.startsWith('Custom::') || type === 'AWS::CloudFormation::CustomResource')) {
      // A custom resource's properties are its handler's: CloudFormation requires only where to send them.
      this.expect(isObject(resource.Properties) && 'ServiceToken' in resource.Properties, `${id}.ServiceToken is required`);
      if (isObject(resource.Properties)) this.freeForm(id, resource.Properties);
      return;
    }
    const schema = typeof type === 'string' ? this.resourceTypes.get(type) : undefined;
    if (!this.expect(schema !== undefined, `${id}.Type ${JSON.stringify(type)} is not a resource type CloudFormation knows`) || !schema)
      return;
    const properties = resource.Properties ?? {};
    if (this.expect(isObject(properties), `${id}.Properties is not an object`))
      this.object(id, properties as object, schema.properties, type as string);
  }

  /** An object against the properties its schema knows: each known, each of its type, the required ones there. */
  private object(path: string, value: object, known: ResourceProperties, label: string): void {
    for (const [name, property] of Object.entries(known))
      if (property.required) this.expect(name in value, `${path}.${name} is required (${label})`);
    for (const [name, item] of Object.entries(value)) {
      const property = Object.hasOwn(known, name) ? known[name] : undefined;
      if (
        !this.expect(
          property !== undefined,
          `${path}.${name} is not a property CloudFormation knows (${label} knows: ${Object.keys(known).join(', ')})`,
        ) ||
        !property
      )
        continue;
      this.value(`${path}.${name}`, item, property.type);
    }
  }

  private value(path: string, value: unknown, type: PropertyType): void {
    const fn = intrinsicName(value);
    if (fn) {
      this.intrinsic(path, value as Record<string, unknown>, type);
      return;
    }
    switch (type.type) {
      case 'string':
      case 'date-time':
        if (
          this.expect(['string', 'number', 'boolean'].includes(typeof value), `${path} is ${describe(value)}, not a string`) &&
          'allowedValues' in type &&
          type.allowedValues
        )
          this.expect(
            type.allowedValues.includes(String(value)),
            `${path} ${JSON.stringify(value)} is not one of ${type.allowedValues.join(', ')}`,
          );
        return;
      case 'integer':
        if (
          this.expect(
            Number.isInteger(Number(value)) && ['number', 'string'].includes(typeof value) && value !== '',
            `${path} is ${describe(value)}, not an integer`,
          ) &&
          type.allowedValues
        )
          this.expect(
            type.allowedValues.includes(Number(value)),
            `${path} ${JSON.stringify(value)} is not one of ${type.allowedValues.join(', ')}`,
          );
        return;
      case 'number':
        this.expect(
          Number.isFinite(Number(value)) && ['number', 'string'].includes(typeof value) && value !== '',
          `${path} is ${describe(value)}, not a number`,
        );
        return;
      case 'boolean':
        this.expect(typeof value === 'boolean' || value === 'true' || value === 'false', `${path} is ${describe(value)}, not a boolean`);
        return;
      case 'null':
        this.expect(value === null, `${path} is ${describe(value)}, not null`);
        return;
      case 'json':
        if (this.expect(isObject(value), `${path} is ${describe(value)}, not a JSON object`)) this.freeForm(path, value);
        return;
      case 'tag':
        if (this.expect(isObject(value), `${path} is ${describe(value)}, not a tag`))
          this.object(
            path,
            value as object,
            { Key: { type: { type: 'string' }, required: true }, Value: { type: { type: 'string' }, required: true } },
            'Tag',
          );
        return;
      case 'ref': {
        const definition = this.db.get('typeDefinition', type.reference);
        if (this.expect(isObject(value), `${path} is ${describe(value)}, not an object (${definition.name})`))
          this.object(path, value as object, definition.properties, definition.name);
        return;
      }
      case 'array':
        if (this.expect(Array.isArray(value), `${path} is ${describe(value)}, not a list`))
          for (const [index, item] of (value as unknown[]).entries()) this.value(`${path}[${index}]`, item, type.element);
        return;
      case 'map':
        if (this.expect(isObject(value), `${path} is ${describe(value)}, not a map`))
          for (const [key, item] of Object.entries(value as object)) this.value(`${path}.${key}`, item, type.element);
        return;
      case 'union': {
        // The first member it fits; failing all, the failures inside the first member of its shape (an object's, a list's).
        const tries = type.types.map((member) => {
          const trial = new TemplateCheck(this.db, this.template);
          trial.value(path, value, member);
          return trial;
        });
        const best =
          tries.find((trial) => trial.failures.length === 0) ??
          tries[type.types.findIndex((member) => typeShape(member) === valueShape(value))];
        if (!best) {
          this.expect(false, `${path} is ${describe(value)}, none of ${type.types.map((member) => member.type).join(' | ')}`);
          return;
        }
        this.checks += best.checks;
        this.failures.push(...best.failures);
        return;
      }
    }
  }

  /** An intrinsic function: its arguments and what they name, and whether what it gives fits `type`. */
  private intrinsic(path: string, call: Record<string, unknown>, type: PropertyType | undefined): void {
    const [[fn, args]] = Object.entries(call);
    if (!this.expect(fn in GIVES, `${path}: ${fn} is not an intrinsic function usable in a property`)) return;
    let gives = GIVES[fn];
    const scalar = (at: string, item: unknown) => this.value(at, item, { type: 'string' });
    switch (fn) {
      case 'Ref':
        if (args === 'AWS::NoValue') return; // the property is left out
        this.reference(path, args);
        if (args === 'AWS::NotificationARNs' || /^(List<|CommaDelimitedList)/.test(this.parameters[args as string]?.Type ?? ''))
          gives = 'list';
        break;
      case 'Fn::GetAtt': {
        const [id, attribute] = typeof args === 'string' ? splitOnce(args) : Array.isArray(args) ? args : [];
        const attributeType = this.attribute(path, id, attribute);
        if (attributeType?.type === 'array') gives = 'list';
        break;
      }
      case 'Fn::Join':
        if (
          this.expect(Array.isArray(args) && args.length === 2 && typeof args[0] === 'string', `${path}: Fn::Join takes [delimiter, list]`)
        )
          this.value(`${path}(Fn::Join)`, (args as unknown[])[1], { type: 'array', element: { type: 'string' } });
        break;
      case 'Fn::Sub':
        this.sub(path, args);
        break;
      case 'Fn::If': {
        if (!this.expect(Array.isArray(args) && args.length === 3, `${path}: Fn::If takes [condition, then, else]`)) return;
        const [condition, ...branches] = args as unknown[];
        this.condition(`${path}(Fn::If)`, condition);
        for (const branch of branches) {
          if (intrinsicName(branch) === 'Ref' && (branch as { Ref: unknown }).Ref === 'AWS::NoValue') continue;
          if (type) this.value(path, branch, type);
          else this.freeForm(path, branch);
        }
        return;
      }
      case 'Fn::Split':
        if (
          this.expect(
            Array.isArray(args) && args.length === 2 && typeof args[0] === 'string',
            `${path}: Fn::Split takes [delimiter, string]`,
          )
        )
          scalar(`${path}(Fn::Split)`, (args as unknown[])[1]);
        break;
      case 'Fn::FindInMap':
        if (
          this.expect(Array.isArray(args) && args.length >= 3, `${path}: Fn::FindInMap takes [map, key, key]`) &&
          typeof (args as unknown[])[0] === 'string'
        )
          this.expect(
            (args as string[])[0] in (this.template.Mappings ?? {}),
            `${path}: Fn::FindInMap names ${(args as string[])[0]}, not a mapping of the template`,
          );
        this.freeForm(path, args);
        break;
      default:
        this.freeForm(path, args);
    }
    if (type) this.fits(path, fn, gives, type);
  }

  private fits(path: string, fn: string, gives: Gives, type: PropertyType): void {
    if (gives === 'any' || type.type === 'json') return;
    if (type.type === 'union') {
      this.expect(
        type.types.some((member) => member.type === 'json' || (gives === 'list' ? member.type === 'array' : SCALARS.has(member.type))),
        `${path}: ${fn} gives a ${gives}, which fits none of its types`,
      );
      return;
    }
    const wanted = SCALARS.has(type.type) ? 'scalar' : type.type === 'array' ? 'list' : 'object';
    this.expect(
      wanted === gives,
      `${path}: ${fn} gives a ${gives} where CloudFormation expects ${wanted === 'object' ? 'an object' : `a ${wanted}`}`,
    );
  }

  /** A `Ref`: a resource, a parameter or a pseudo parameter. */
  private reference(path: string, name: unknown): void {
    this.expect(
      typeof name === 'string' && (name in this.resources || name in this.parameters || PSEUDO_PARAMETERS.includes(name)),
      `${path}: Ref ${JSON.stringify(name)} names no resource, parameter or pseudo parameter of the template`,
    );
  }

  /** A `Fn::GetAtt` (or a `${A.B}` of a `Fn::Sub`): a resource of the template and an attribute its type has. */
  private attribute(path: string, id: unknown, attribute: unknown): PropertyType | undefined {
    const resource = typeof id === 'string' ? this.resources[id] : undefined;
    if (
      !this.expect(
        isObject(resource) && typeof attribute === 'string',
        `${path}: Fn::GetAtt ${JSON.stringify([id, attribute])} names no resource of the template`,
      )
    )
      return undefined;
    const type = resource?.Type as string;
    if (type.startsWith('Custom::') || type === 'AWS::CloudFormation::CustomResource') return undefined;
    const schema = this.resourceTypes.get(type);
    if (!schema) return undefined; // reported with the resource
    const known = schema.attributes[attribute as string];
    this.expect(
      known !== undefined,
      `${path}: Fn::GetAtt ${id}.${attribute}: ${type} has no such attribute (known: ${Object.keys(schema.attributes).join(', ')})`,
    );
    return known?.type;
  }

  /** A `Fn::Sub`: each `${name}` a variable of its own, a resource, a parameter, a pseudo parameter or `${resource.attribute}`. */
  private sub(path: string, args: unknown): void {
    const [text, variables] = Array.isArray(args) ? args : [args, {}];
    if (!this.expect(typeof text === 'string' && isObject(variables), `${path}: Fn::Sub takes a string or [string, variables]`)) return;
    for (const [name, item] of Object.entries(variables)) this.value(`${path}(Fn::Sub ${name})`, item, { type: 'string' });
    for (const [, name] of (text as string).matchAll(/\$\{([^}!][^}]*)\}/g)) {
      if (name in variables) continue;
      if (name.includes('.') && !name.startsWith('AWS::')) this.attribute(path, ...splitOnce(name));
      else this.reference(`${path}(Fn::Sub)`, name);
    }
  }

  private condition(path: string, name: unknown): void {
    this.expect(
      typeof name === 'string' && name in (this.template.Conditions ?? {}),
      `${path}: condition ${JSON.stringify(name)} is not in the template's Conditions`,
    );
  }

  /** A free-form value (a policy document, an output): only what its intrinsic functions name is checked. */
  private freeForm(path: string, value: unknown): void {
    const fn = intrinsicName(value);
    if (fn && fn in GIVES) {
      this.intrinsic(path, value as Record<string, unknown>, undefined);
      return;
    }
    if (fn) {
      // The condition functions, in Conditions and Fn::If's conditions.
      for (const item of Object.values(value as object)) this.freeForm(path, item);
      return;
    }
    if (isObject(value) && Object.keys(value).length === 1 && 'Condition' in value && typeof value.Condition === 'string')
      this.condition(path, value.Condition);
    else if (Array.isArray(value)) for (const [index, item] of value.entries()) this.freeForm(`${path}[${index}]`, item);
    else if (isObject(value)) for (const [key, item] of Object.entries(value)) this.freeForm(`${path}.${key}`, item);
  }
}

function splitOnce(text: string): [string, string] {
  const dot = text.indexOf('.');
  return dot < 0 ? [text, ''] : [text.slice(0, dot), text.slice(dot + 1)];
}

/** The outline a schema type asks for, and a value's: an object, a list or a scalar. */
const typeShape = (type: PropertyType) => (SCALARS.has(type.type) ? 'scalar' : type.type === 'array' ? 'list' : 'object');
const valueShape = (value: unknown) => (Array.isArray(value) ? 'list' : isObject(value) ? 'object' : 'scalar');

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (isObject(value)) return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

// `npx tsx test/kit/cfn-schema.ts TEMPLATE…`: checks packaged templates (`.serverless/*.json`) before a deploy.
if (require.main === module) {
  let failed = false;
  for (const file of process.argv.slice(2)) {
    const { checks, failures } = validateTemplate(JSON.parse(readFileSync(file, 'utf8')));
    console.log(`${file}: ${checks} checks, ${failures.length} failed`);
    for (const failure of failures) console.log(`  ${failure}`);
    failed ||= failures.length > 0;
  }
  process.exitCode = failed ? 1 : 0;
}
