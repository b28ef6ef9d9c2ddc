// A local Serverless plugin: Serverless v3 has no setting for a REST API stage's own throttling, and sets stage
// options through SDK calls after deploy rather than in the template. This puts rate and burst limits (from
// resources/stages.js) on the stage through the Deployment's StageDescription, so they are part of the reviewed
// CloudFormation template.
'use strict';

class StageThrottling {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:package:finalize': () => this.addThrottling() };
  }

  addThrottling() {
    const { service } = this.serverless;
    const settings = service.custom.stage;
    const resources = service.provider.compiledCloudFormationTemplate.Resources;
    for (const resource of Object.values(resources)) {
      if (resource.Type !== 'AWS::ApiGateway::Deployment') continue;
      resource.Properties.StageDescription = {
        ...resource.Properties.StageDescription,
        ThrottlingRateLimit: settings.throttleRateLimit,
        ThrottlingBurstLimit: settings.throttleBurstLimit,
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

module.exports = StageThrottling;
