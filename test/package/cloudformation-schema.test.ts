/**
 * The packaged prod stage, checked against CloudFormation's published resource schemas (test/kit/cfn-schema.ts), as
 * an outside reviewer checks it: the other tests of the template read the JSON the project itself wrote, so a property
 * CloudFormation does not know (the tables' `StreamEnabled`, which made every deploy fail) passed them all. Reads the
 * run's one build of the package (test/kit/packaged.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateTemplate } from '../kit/cfn-schema';
import { packagedStage } from '../kit/packaged';

jest.setTimeout(300_000);

let folder: string;
beforeAll(async () => {
  folder = await packagedStage();
});

it.each([
  // The stack a first deploy creates (the deployment bucket), then the one every deploy updates it to.
  ['cloudformation-template-create-stack.json', 50],
  ['cloudformation-template-update-stack.json', 8000],
])('%s is a template CloudFormation accepts', (file, atLeast) => {
  const { checks, failures } = validateTemplate(JSON.parse(readFileSync(join(folder, file), 'utf8')));
  expect(failures).toEqual([]);
  // Every resource, property and reference of the stack was looked at (8,993 checks on the update stack when written).
  expect(checks).toBeGreaterThan(atLeast);
});
