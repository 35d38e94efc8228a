// One import for a back end that logs users in and calls APIs for them: the relying party comes with it.
@_exported import OIDC
