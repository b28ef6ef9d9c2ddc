// The tests run on Node 20 while Lambda runs nodejs22.x; the SDK's notice about Node 20 would only add noise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
