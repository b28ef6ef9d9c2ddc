/**
 * The template check (test/kit/cfn-schema.ts) fails where CloudFormation would refuse a stack, naming the resource
 * and property, and passes what it accepts. The packaged prod template itself is checked in the package project
 * (test/package/cloudformation-schema.test.ts); here, small templates made from the tables' one definition.
 */
import tables from '../../resources/tables.js';
import { validateTemplate } from '../kit/cfn-schema';

/** A stack of the tables of `prod`, a role and a function that reads them: each case below breaks one thing. */
function template(): any {
  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Resources: {
      ...tables.cloudFormationResources('prod'),
      ReaderRole: {
        Type: 'AWS::IAM::Role',
        Properties: {
          AssumeRolePolicyDocument: {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Principal: { Service: ['lambda.amazonaws.com'] }, Action: ['sts:AssumeRole'] }],
          },
          Policies: [
            {
              PolicyName: 'read',
              PolicyDocument: {
                Version: '2012-10-17',
                Statement: [{ Effect: 'Allow', Action: ['dynamodb:GetItem'], Resource: [{ 'Fn::GetAtt': ['TradesTable', 'Arn'] }] }],
              },
            },
          ],
        },
      },
      ReaderFunction: {
        Type: 'AWS::Lambda::Function',
        DependsOn: ['ReaderRole'],
        Properties: {
          Code: { S3Bucket: 'deployment-bucket', S3Key: 'reader.zip' },
          Handler: 'reader.handler',
          Runtime: 'nodejs22.x',
          MemorySize: 1024,
          Timeout: '6',
          Role: { 'Fn::GetAtt': ['ReaderRole', 'Arn'] },
          Environment: {
            Variables: {
              TRADES_TABLE: { Ref: 'TradesTable' },
              REGION_URL: { 'Fn::Sub': `https://dynamodb.\${AWS::Region}.\${AWS::URLSuffix}/\${TradesTable}` },
            },
          },
        },
      },
      AccountsMapping: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          FunctionName: { Ref: 'ReaderFunction' },
          EventSourceArn: { 'Fn::GetAtt': ['AccountsTable', 'StreamArn'] },
          StartingPosition: 'TRIM_HORIZON',
        },
      },
    },
    Outputs: { ReaderArn: { Value: { 'Fn::GetAtt': ['ReaderFunction', 'Arn'] } } },
  };
}

it('passes a template CloudFormation accepts, intrinsic functions where it takes them, after many checks', () => {
  const report = validateTemplate(template());
  expect(report.failures).toEqual([]);
  expect(report.checks).toBeGreaterThan(100);
});

it("fails on DynamoDB's CreateTable shape used as CloudFormation's: the three StreamEnabled of issue 42", () => {
  const stack = template();
  for (const [table, { logicalId }] of Object.entries(tables.TABLES))
    stack.Resources[logicalId].Properties = tables.createTableInput('prod', table);
  expect(validateTemplate(stack).failures).toEqual(
    ['AccountsTable', 'BalancesTable', 'LedgerTable'].map(
      (id) =>
        `${id}.StreamSpecification.StreamEnabled is not a property CloudFormation knows (StreamSpecification knows: StreamViewType, ResourcePolicy, Tags)`,
    ),
  );
});

it.each<[string, (stack: any) => void, string]>([
  [
    'an unknown property',
    (stack) => {
      stack.Resources.ReaderFunction.Properties.Memory = 1024;
    },
    'ReaderFunction.Memory is not a property CloudFormation knows (AWS::Lambda::Function knows: ',
  ],
  [
    'an unknown property of a nested type',
    (stack) => {
      stack.Resources.TradesTable.Properties.GlobalSecondaryIndexes[2].Projection.Type = 'ALL';
    },
    'TradesTable.GlobalSecondaryIndexes[2].Projection.Type is not a property CloudFormation knows (Projection knows: ',
  ],
  [
    'a wrong type',
    (stack) => {
      stack.Resources.ReaderFunction.Properties.MemorySize = '1 GB';
    },
    'ReaderFunction.MemorySize is string "1 GB", not an integer',
  ],
  [
    'a wrong type, nested',
    (stack) => {
      stack.Resources.TradesTable.Properties.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled = 'yes';
    },
    'TradesTable.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled is string "yes", not a boolean',
  ],
  [
    'an object where a list is expected',
    (stack) => {
      stack.Resources.ReaderRole.Properties.Policies = stack.Resources.ReaderRole.Properties.Policies[0];
    },
    'ReaderRole.Policies is an object, not a list',
  ],
  [
    'a value outside those allowed',
    (stack) => {
      stack.Resources.ReaderFunction.Properties.PackageType = 'Jar';
    },
    'ReaderFunction.PackageType "Jar" is not one of Image, Zip',
  ],
  [
    'a string function where an object is expected',
    (stack) => {
      stack.Resources.ReaderFunction.Properties.Code = { 'Fn::Join': ['', ['s3://', 'bucket']] };
    },
    'ReaderFunction.Code: Fn::Join gives a scalar where CloudFormation expects an object',
  ],
  [
    'a missing required property',
    (stack) => {
      delete stack.Resources.ReaderFunction.Properties.Role;
    },
    'ReaderFunction.Role is required (AWS::Lambda::Function)',
  ],
  [
    'a missing required property of a nested type',
    (stack) => {
      delete stack.Resources.TradesTable.Properties.KeySchema[1].KeyType;
    },
    'TradesTable.KeySchema[1].KeyType is required (KeySchema)',
  ],
  [
    'a dangling Ref',
    (stack) => {
      stack.Resources.AccountsMapping.Properties.FunctionName = { Ref: 'WriterFunction' };
    },
    'AccountsMapping.FunctionName: Ref "WriterFunction" names no resource, parameter or pseudo parameter of the template',
  ],
  [
    'a dangling Ref inside a policy document',
    (stack) => {
      stack.Resources.ReaderRole.Properties.Policies[0].PolicyDocument.Statement[0].Resource.push({ Ref: 'FleetTable' });
    },
    'ReaderRole.Policies[0].PolicyDocument.Statement[0].Resource[1]: Ref "FleetTable" names no resource, parameter or pseudo parameter of the template',
  ],
  [
    'a Fn::GetAtt of an attribute its resource lacks',
    (stack) => {
      stack.Resources.AccountsMapping.Properties.EventSourceArn = { 'Fn::GetAtt': ['TradesTable', 'StreamARN'] };
    },
    'AccountsMapping.EventSourceArn: Fn::GetAtt TradesTable.StreamARN: AWS::DynamoDB::Table has no such attribute (known: Arn, StreamArn)',
  ],
  [
    'a dangling Fn::Sub variable',
    (stack) => {
      stack.Resources.ReaderFunction.Properties.Environment.Variables.REGION_URL['Fn::Sub'] += `\${AWS::Zone}`;
    },
    'ReaderFunction.Environment.Variables.REGION_URL(Fn::Sub): Ref "AWS::Zone" names no resource, parameter or pseudo parameter of the template',
  ],
  [
    'a dangling DependsOn',
    (stack) => {
      stack.Resources.ReaderFunction.DependsOn.push('ReaderLogGroup');
    },
    'ReaderFunction.DependsOn names "ReaderLogGroup", not another resource of the template',
  ],
  [
    'an unknown resource type',
    (stack) => {
      stack.Resources.AlertsTable.Type = 'AWS::DynamoDB::GlobalTables';
    },
    'AlertsTable.Type "AWS::DynamoDB::GlobalTables" is not a resource type CloudFormation knows',
  ],
])('fails on %s, naming the resource and property', (_case, breakIt, failure) => {
  const stack = template();
  breakIt(stack);
  const { failures } = validateTemplate(stack);
  expect(failures).toHaveLength(1);
  expect(failures[0].startsWith(failure)).toBe(true);
});
