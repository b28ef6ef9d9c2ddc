// A local Serverless plugin: Serverless v3 has no setting for a REST API stage's own throttling, and sets stage
// options (X-Ray tracing among them) through SDK calls after deploy rather than in the template. This puts the
// rate and burst limits (from resources/stages.js) and, with `provider.tracing.apiGateway`, active tracing on the
// stage through the Deployment's StageDescription, so they are part of the reviewed CloudFormation template.
'use strict';

class StageOptions {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:package:finalize': () => this.addStageOptions() };
  }

  addStageOptions() {
    const { service } = this.serverless;
    const settings = service.custom.stage;
    const tracing = Boolean(service.provider.tracing?.apiGateway);
    const resources = service.provider.compiledCloudFormationTemplate.Resources;
    for (const resource of Object.values(resources)) {
      if (resource.Type !== 'AWS::ApiGateway::Deployment') continue;
      resource.Properties.StageDescription = {
        ...resource.Properties.StageDescription,
        ThrottlingRateLimit: settings.throttleRateLimit,
        ThrottlingBurstLimit: settings.throttleBurstLimit,
        TracingEnabled: tracing,
        MethodSettings: [
          {
            HttpMethod: '*',
            ResourcePath: '/*',
            ThrottlingRateLimit: settings.throttleRateLimit,
            ThrottlingBurstLimit: settings.throttleBurstLimit,
          },
        ],
      };
    }
  }
}

module.exports = StageOptions;
