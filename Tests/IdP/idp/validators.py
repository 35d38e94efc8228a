from oauth2_provider.oauth2_validators import OAuth2Validator


class IdPValidator(OAuth2Validator):
    # Request-agnostic signature (no `request` argument): DOT then lists these
    # claims in the discovery document's `claims_supported`.
    # DOT filters them by scope (oidc_claim_scope): email* need `email`,
    # names need `profile`. The same set goes into the ID token and UserInfo.
    def get_additional_claims(self):
        return {
            "email": lambda r: r.user.email,
            "email_verified": lambda r: True,
            "name": lambda r: r.user.get_full_name(),
            "given_name": lambda r: r.user.first_name,
            "family_name": lambda r: r.user.last_name,
        }

    # get_userinfo_claims is DOT's default: it returns get_oidc_claims(), i.e.
    # sub + the claims above, filtered by the access token's scopes.
