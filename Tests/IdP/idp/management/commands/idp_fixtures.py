from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from oauth2_provider.models import get_application_model

REDIRECT_URI = "http://127.0.0.1:8765/callback"
POST_LOGOUT_REDIRECT_URI = "http://127.0.0.1:8765/logged-out"

CLIENTS = [
    # client_id, clear secret, client type, name
    ("client-basic", "secret-basic", "confidential", "Confidential client (client_secret_basic)"),
    ("client-post", "secret-post", "confidential", "Confidential client (client_secret_post)"),
    ("client-public", "", "public", "Public client (PKCE only)"),
]


class Command(BaseCommand):
    help = "Create/refresh the test IdP fixtures (user alice, three OAuth clients). Idempotent."

    def handle(self, *args, **options):
        User = get_user_model()
        alice, _ = User.objects.update_or_create(
            username="alice",
            defaults={"email": "alice@example.com", "first_name": "Alice", "last_name": "Liddell"},
        )
        alice.set_password("alice-password-1")
        alice.save()

        Application = get_application_model()
        for client_id, secret, client_type, name in CLIENTS:
            # The clear secret is assigned; DOT's ClientSecretField hashes it on
            # save (hash_client_secret=True), so clients authenticate with the
            # clear value while only the hash is stored.
            Application.objects.update_or_create(
                client_id=client_id,
                defaults={
                    "name": name,
                    "client_secret": secret,
                    "hash_client_secret": True,
                    "client_type": client_type,
                    "authorization_grant_type": Application.GRANT_AUTHORIZATION_CODE,
                    "redirect_uris": REDIRECT_URI,
                    "post_logout_redirect_uris": POST_LOGOUT_REDIRECT_URI,
                    "algorithm": Application.RS256_ALGORITHM,
                    "skip_authorization": True,
                    "user": None,
                },
            )
        self.stdout.write("fixtures: user alice; clients %s" % ", ".join(c[0] for c in CLIENTS))
