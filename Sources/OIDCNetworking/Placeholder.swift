import OIDC
