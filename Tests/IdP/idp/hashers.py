from django.contrib.auth.hashers import PBKDF2PasswordHasher


class FastPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """Test-only hasher: far fewer iterations so that every token request
    (client secret check) and login stays fast on a 2-core CI machine."""

    algorithm = "pbkdf2_sha256_idptest"
    iterations = 1000
