"""An identity provider for the JWKS tests (tests/tests/jwks): keys, a published key set,
tokens, and a server for the set. Independent of the service's own JWT code: jwcrypto
(on top of pyca/cryptography) generates, signs and serializes.

    jwks_tool.py keys DIR                 make every key the tests use, private, in DIR
    jwks_tool.py publish DIR KID...       write DIR/jwks.json with those keys' public halves
    jwks_tool.py mint DIR KID CLAIMS [N]  print N tokens (default 1) signed with KID;
                                          KID "random" signs with rs256 under random kids,
                                          "hs256:SECRET" signs HS256, "none" is unsigned
    jwks_tool.py public-pem DIR KID       print KID's public key as PEM (what a confused
                                          verifier would take for an HMAC secret)
    jwks_tool.py serve DIR PORT           serve DIR/jwks.json at /jwks.json, with
                                          Cache-Control: max-age from DIR/max-age (300),
                                          503 while DIR/down exists; GET /fetches counts
"""

import base64
import json
import os
import sys
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from jwcrypto import jwk, jwt

# kid -> (how to make it, its alg)
KEYS = {
    "rs256": (lambda: jwk.JWK.generate(kty="RSA", size=2048), "RS256"),
    "ps256": (lambda: jwk.JWK.generate(kty="RSA", size=2048), "PS256"),
    "es256": (lambda: jwk.JWK.generate(kty="EC", crv="P-256"), "ES256"),
    "eddsa": (lambda: jwk.JWK.generate(kty="OKP", crv="Ed25519"), "EdDSA"),
    "weak": (lambda: jwk.JWK.generate(kty="RSA", size=1024), "RS256"),
    "next": (lambda: jwk.JWK.generate(kty="RSA", size=2048), "RS256"),
    "enc": (lambda: jwk.JWK.generate(kty="RSA", size=2048), "RS256"),
}


def private_keys(directory):
    with open(os.path.join(directory, "private.json")) as file:
        return {kid: jwk.JWK(**key) for kid, key in json.load(file).items()}


def keys(directory):
    made = {}
    for kid, (make, alg) in KEYS.items():
        key = make()
        exported = json.loads(key.export_private())
        # jwcrypto signs only with a signing key; "enc" is published for encryption.
        exported.update({"kid": kid, "alg": alg, "use": "sig"})
        made[kid] = exported
    with open(os.path.join(directory, "private.json"), "w") as file:
        json.dump(made, file)


def publish(directory, kids):
    private = private_keys(directory)
    public = []
    for kid in kids:
        half = json.loads(private[kid].export_public())
        half.update({"kid": kid, "alg": KEYS[kid][1], "use": "enc" if kid == "enc" else "sig"})
        public.append(half)
    path = os.path.join(directory, "jwks.json")
    with open(path + ".tmp", "w") as file:
        json.dump({"keys": public}, file)
    os.replace(path + ".tmp", path)


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def mint(directory, kid, claims, count):
    # Signed as given, byte for byte: a test may send what json.loads would rewrite
    # (a member twice).
    json.loads(claims)
    if kid == "none":
        header = b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
        for _ in range(count):
            print(f"{header}.{b64(claims.encode())}.")
        return
    if kid.startswith("hs256:"):
        secret = jwk.JWK(kty="oct", k=b64(kid[len("hs256:"):].encode()))
        for _ in range(count):
            token = jwt.JWT(header={"alg": "HS256", "kid": "rs256"}, claims=claims)
            token.make_signed_token(secret)
            print(token.serialize())
        return
    private = private_keys(directory)
    signing_kid = "rs256" if kid == "random" else kid
    key = private[signing_kid]
    for _ in range(count):
        header_kid = str(uuid.uuid4()) if kid == "random" else kid
        token = jwt.JWT(header={"alg": KEYS[signing_kid][1], "kid": header_kid}, claims=claims)
        token.make_signed_token(key)
        print(token.serialize())


def serve(directory, port):
    fetches = {"n": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/fetches":
                self.answer(200, json.dumps({"fetches": fetches["n"]}).encode(), {})
                return
            if self.path != "/jwks.json":
                self.answer(404, b"", {})
                return
            fetches["n"] += 1
            if os.path.exists(os.path.join(directory, "down")):
                self.answer(503, b"", {})
                return
            try:
                with open(os.path.join(directory, "max-age")) as file:
                    max_age = file.read().strip()
            except FileNotFoundError:
                max_age = "300"
            with open(os.path.join(directory, "jwks.json"), "rb") as file:
                body = file.read()
            self.answer(200, body, {"Cache-Control": f"public, max-age={max_age}"})

        def answer(self, status, body, headers):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print("listening", flush=True)
    server.serve_forever()


def main(argv):
    command, directory = argv[1], argv[2]
    if command == "keys":
        keys(directory)
    elif command == "publish":
        publish(directory, argv[3:])
    elif command == "mint":
        mint(directory, argv[3], argv[4], int(argv[5]) if len(argv) > 5 else 1)
    elif command == "public-pem":
        sys.stdout.write(private_keys(directory)[argv[3]].export_to_pem().decode())
    elif command == "serve":
        serve(directory, int(argv[3]))
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv)
