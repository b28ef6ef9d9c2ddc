// A local Serverless plugin: Serverless v3 has no setting for a REST API stage's own throttling, and sets stage
// options (X-Ray tracing among them) through SDK calls after deploy rather than in the template. This puts the
// rate and burst limits (from resources/stages.js) and, with `provider.tracing.apiGateway`, active tracing on the
// stage through the Deployment's StageDescription, so they are part of the reviewed CloudFormation template.
// It also gives the CORS preflights (Serverless's mock integrations, which set only the Access-Control headers) the
// security headers every other answer carries, and names the allowed origin only to a request from it (below).
'use strict';

const { API_HEADERS } = require('./http-contract');

const ALLOW_ORIGIN = 'method.response.header.Access-Control-Allow-Origin';
const VARY = 'method.response.header.Vary';

function addStageOptions(serverless) {
  const { service } = serverless;
  const settings = service.custom.stage;
  securePreflights(service, settings.corsOrigins);
  const tracing = Boolean(service.provider.tracing?.apiGateway);
  const resources = service.provider.compiledCloudFormationTemplate.Resources;
  const limits = { ThrottlingRateLimit: settings.throttleRateLimit, ThrottlingBurstLimit: settings.throttleBurstLimit };
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::ApiGateway::Deployment') continue;
    resource.Properties.StageDescription = {
      ...resource.Properties.StageDescription,
      ...limits,
      TracingEnabled: tracing,
      MethodSettings: [{ HttpMethod: '*', ResourcePath: '/*', ...limits }],
    };
  }
}

/**
 * Adds API_HEADERS to every OPTIONS method's mock answer (declared on the method response, set by the integration).
 * Serverless sets `Access-Control-Allow-Origin` to the first allowed origin for every preflight, and its response
 * template replaces it with the request's Origin when that is allowed: a missing or foreign Origin was told the
 * first one. Without the static value, only the template's override names an origin, and only an allowed one; the
 * answer then depends on the Origin, which `Vary` says (as every other answer does, api/http/cors.ts).
 */
function securePreflights(service, origins) {
  const resources = service.provider.compiledCloudFormationTemplate.Resources;
  const everyOrigin = origins.includes('*');
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::ApiGateway::Method' || resource.Properties.HttpMethod !== 'OPTIONS') continue;
    for (const response of resource.Properties.Integration.IntegrationResponses ?? []) {
      for (const [name, value] of Object.entries(API_HEADERS)) response.ResponseParameters[`method.response.header.${name}`] = `'${value}'`;
      if (everyOrigin) continue;
      delete response.ResponseParameters[ALLOW_ORIGIN];
      response.ResponseParameters[VARY] = "'Origin'";
    }
    for (const response of resource.Properties.MethodResponses ?? []) {
      for (const name of Object.keys(API_HEADERS)) response.ResponseParameters[`method.response.header.${name}`] = true;
      if (!everyOrigin) response.ResponseParameters[VARY] = true;
    }
  }
}

module.exports = require('./plugin')({ 'before:package:finalize': addStageOptions });
