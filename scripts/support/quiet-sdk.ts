// Imported first by the project's commands. They support Node 20 (the README says so) while Lambda runs nodejs22.x:
// the AWS SDK's notice that Node 20 support is ending would be printed by every command and every process they start
// (the variable is inherited), and says nothing the operator can act on.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
