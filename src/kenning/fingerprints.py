"""Error fingerprints: a signature with what varies between runs masked out.

Two occurrences of one error differ in paths, line numbers, hex ids, quoted names and
numbers; :func:`error_fingerprint` masks those and keeps what identifies the error (its
class or code, and the numbers that carry meaning), so that the same error always finds its
fix by exact match, and a different error is recognisably different knowledge.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .errorfix import ERROR_FIX_PREFIX, one_line, parse_error_fix
from .lazyre import cued, lazy
from .log_formats import ANSI, CONTROL
from .remembered import remembered
from .signatures import extract_error_signature, without_exit_code_suffix

__all__ = [
    "RULES_VERSION",
    "error_fingerprint",
    "identifies",
    "missing_names",
    "specific",
    "without_cause_wrapper",
]

#: The version of the rules below, recorded in a store whose stored fingerprints were
#: brought up to them (:meth:`kenning.store.MemoryStore.renew_fingerprints`). Raise it with
#: every change to what a signature's fingerprint is (tests/test_errorfix_store.py's
#: test_the_fingerprint_rules_version_names_the_rules says when): a number, not a digest of
#: the code, because a store shared by two kennings must know which rules are the newer (the
#: older one leaves the newer one's fingerprints as they are).
RULES_VERSION = 40

#: An error that only wraps its cause, at a fingerprint's end (its line's whole message):
#: Node's fetch (undici) throws ``TypeError: fetch failed`` for every network failure, the
#: failure its ``[cause]`` (``connect ECONNREFUSED``, ``getaddrinfo ENOTFOUND``, a
#: certificate's). It names no error of its own, as a bare ``Error:`` does. (Not a rule of
#: what a fingerprint is: the fingerprints are unchanged.)
_CAUSE_WRAPPER = lazy(r"(?<![\w.])typeerror: fetch failed$")


def without_cause_wrapper(fingerprint: str) -> str:
    """``fingerprint`` without an error at its end that only wraps its cause (Node's
    ``typeerror: fetch failed``): ``""`` of the wrapper alone, ``request failed: `` of
    ``console.error("request failed:", e)``'s line."""
    return _CAUSE_WRAPPER.sub("", fingerprint)


_EXTS = (
    "py|pyi|pyx|js|mjs|cjs|jsx|ts|tsx|rs|go|java|kt|kts|scala|rb|php|c|h|cc|cpp|cxx|hpp|hh|cs|"
    "swift|m|mm|sh|bash|zsh|ps1|lua|pl|ex|exs|erl|hs|ml|dart|vue|svelte|json|jsonl|yaml|yml|"
    "toml|ini|cfg|conf|lock|md|rst|txt|html|css|scss|sql|xml|proto|gradle|tf|dockerfile|log"
)
_KEEP_NUMBER = cued(
    r"(?P<keep>\b(?:exit(?:ed)?\s+(?:with\s+)?(?:non-?zero\s+)?(?:exit\s+)?(?:code|status)"
    r"|exit\s+code|status\s*code|signal|errno|http(?:/\d(?:\.\d)?)?"
    # Gradle's "finished with non-zero exit value 137", "exitCode 137", "exit_code=137", compose's
    # "didn't complete successfully: exit 137"
    r"|exit\s+value|exit_?code|successfully:\s+exit"
    # (docker's classic builder: "The command '…' returned a non-zero code: 137")
    r"|returned\s+(?:a\s+)?(?:non-zero\s+)?(?:exit\s+)?(?:code|status)"
    # make's "Error 2" (the recipe's exit status), MySQL's "ERROR 1045 (28000)", npm's
    # "npm ERR! code 127" (the script's exit code)
    r"|error(?=\s+\d)|npm\s+(?:err!|error)\s+code"
    # an HTTP status ("failed with status 401", curl's "returned error: 404") and a Python
    # program's exit status ("SystemExit: 2")
    r"|status(?=\s*[:=]?\s*[1-5]\d\d\b)|returned\s+error|SystemExit"
    # the API level a dependency needs (Android: "compile against version 35 or later"), what
    # its fix sets; an errno in parentheses (nginx's "bind() … failed (98: Address already in
    # use)")
    r"|compile\s+against\s+version|(?<=\()(?=\d{1,3}:\s+[A-Z][a-z])"
    # curl's error number, which names its error ("curl: (7)" could not connect, "(28)" timed
    # out: curl 8 says "Couldn't connect to server" for both), and git's "RPC failed; curl 56"
    r"|curl:\s*\((?=\d+\))|curl(?=\s+\d+\s)"
    # turbo's "command (…) exited (137)"
    r"|exited\s+\((?=-?\d+\)))\s*[:=]?\s*)(?P<num>-?\d+)",
    re.IGNORECASE,
)
#: The name of a missing module, package, crate, header or script is the error itself (its
#: fix installs or adds that one): ``No module named 'yaml'``, ``Cannot find module
#: 'dotenv'``, ``Can't resolve 'lodash'``, ``undeclared crate or module `serde```, npm's
#: ``Missing script: "build"``, gcc's ``fatal error: openssl/ssl.h: No such file or
#: directory``, Go's ``no required module provides package github.com/lib/pq``, and the name
#: Python cannot import and its module (``cannot import name 'x' from 'y'``, ``module 'y' has
#: no attribute 'x'``; JavaScript's and TypeScript's export that a module does not have, the
#: same). A quoted name that is a path (``'./config'``, ``'/srv/app/x.js'``) is masked as
#: paths are.
_QUOTED_NAME = r"'[@\w][\w.@/+-]*'|\"[@\w][\w.@/+-]*\"|`[@\w][\w.@/+-]*`"
#: What npm 11 says after the package it could not find (``npm error 404 The requested
#: resource 'yaml-foo@*' could not be found or you do not have permission to access it.``;
#: npm 10 said ``… is not in this registry.``).
_NPM_11_NOT_FOUND = r"\s+could\s+not\s+be\s+found\s+or\s+you\s+do\s+not\s+have\s+permission\b"
#: A type as a type checker quotes it (mypy's and pyright's ``"dict[str, list[int]] | None"``,
#: tsc's ``'string | undefined'``).
_CHECKED_TYPE = r"\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'"
#: A value kept already (its placeholder, :func:`_keep_token`).
_KEPT = r"\x00[a-z]+\x00"
#: Rust's io::Error kinds that say no error of their own: ``Other`` became ``Uncategorized``
#: in 1.55, and errnos keep moving from it to kinds of their own (``IsADirectory``,
#: ``Unsupported``), so a catch-all beside a named kind may be one error said by two Rusts;
#: ``WouldBlock`` is a socket's read timeout on Unix (``TimedOut`` on Windows) as well as a
#: non-blocking call's EAGAIN. They are left as words; a catch-all's errno is kept instead:
#: one ``Uncategorized`` of EIO is not one of EROFS (their messages are masked as quoted
#: text). WouldBlock's is not: EAGAIN is 11 on Linux, 35 on macOS, 10035 on Windows.
_RUST_UNNAMED_IO_KINDS = ("Other", "Uncategorized", "WouldBlock")
#: The words before the name of a module, package or gem a tool could not find, kept in
#: quotes (:data:`_KEEP_MODULE`) and read back by :func:`missing_names`, with the kind of
#: thing each says is missing: Python's module, Node's module or package (webpack's "can't
#: resolve", esbuild's "could not resolve", yarn's package), a Rust import or a crate cargo
#: or rustc cannot find (rustc's E0463 "can't find crate for", E0433's "use of undeclared
#: crate or module" as 1.84 words it, "use of unresolved module or unlinked crate" as 1.85
#: does, "cannot find module or crate … in this scope" as 1.95 does), a gem Bundler cannot
#: find. (Go's "cannot find package" quotes its path in double quotes, Node's ESM in single
#: ones, esbuild in double ones.)
_MISSING_WORDS_OF_KIND = (
    ("python", r"no\s+module\s+named"),
    ("node", r"cannot\s+find\s+(?:module|package)|can'?t\s+resolve|could\s+not\s+resolve"),
    (
        "rust",
        r"unresolved\s+import|no\s+matching\s+package\s+named|can'?t\s+find\s+crate\s+for"
        r"|undeclared\s+crate\s+or\s+module|unresolved\s+module\s+or\s+unlinked\s+crate"
        r"|cannot\s+find\s+module\s+or\s+crate",
    ),
    ("node", r"couldn'?t\s+find\s+package"),
    ("gem", r"could\s+not\s+find\s+gem"),
)
_MISSING_WORDS = "|".join(words for _, words in _MISSING_WORDS_OF_KIND)
#: A path rustc could not resolve (``crate::config::Settings``, ``self::db``, ``serde::Foo``;
#: a raw name, ``r#try``; rustc before 2018's root, ``{{root}}``), or a crate's name alone.
_RUST_PATH = r"[\w#{}]{1,100}(?:::[\w#{}]{1,100}){0,30}"
#: ... in the quotes rustc prints it in (`serde::Foo`) or a note's ('…', "…", ‘…’).
_RUST_QUOTED_PATH = rf"`{_RUST_PATH}`|'{_RUST_PATH}'|\"{_RUST_PATH}\"|‘{_RUST_PATH}’"
#: The words rustc says a wrong path in (each quoted path read in one kind of quotes, so that
#: a note that types them otherwise is the same error): E0432's ``unresolved import
#: `crate::config::Settings``` (a list, ``unresolved imports `a::B`, `a::C```), E0433's
#: ``cannot find `nope` in `fs``` (rustc 1.95; :data:`_RUST_OLD_COULD_NOT_FIND` before) and
#: E0425's and E0412's ``cannot find value `Settings2` in module `crate::config``` (``type …
#: in crate `mylib```).
_RUST_PATH_SAID = cued(
    rf"(\bunresolved\s+imports?\s+)((?:{_RUST_QUOTED_PATH})(?:\s*,\s*(?:{_RUST_QUOTED_PATH})){{0,20}})"
    rf"|(\bcannot\s+find\s+(?:[a-z]{{1,20}}[\s,]+){{0,4}}?)({_RUST_QUOTED_PATH})(\s+in\s+"
    rf"(?:(?:module|crate|enum|trait|struct|union)\s+)?)({_RUST_QUOTED_PATH})",
    re.IGNORECASE,
)
_RUST_QUOTED_ONE = cued(_RUST_QUOTED_PATH)
#: rustc's E0433 before it said ``cannot find `nope` in `fs``` (1.95): ``failed to resolve:
#: could not find `nope` in `fs``` (its label still says ``could not find `nope3` in the
#: crate root`` for ``crate::nope3``, which its message says is in ``crate``).
_RUST_OLD_COULD_NOT_FIND = cued(
    rf"\bfailed\s+to\s+resolve:\s+could\s+not\s+find\s+({_RUST_QUOTED_PATH})\s+in\s+"
    rf"(?:({_RUST_QUOTED_PATH})|the\s+crate\s+root\b)",
    re.IGNORECASE,
)
#: A key as a name in the code (:data:`_KEEP_MODULE`'s KeyError): a letter or ``_``, then
#: letters, digits, ``_``, ``.`` and ``-``, at most 64 characters, without a run of four
#: digits (an id, a year: ``'order_12345'``, ``'2024-05-01'``) nor eight hex digits or more
#: with a digit among them (a hash, a uuid: ``'a3f9c2e1…'``).
_KEY_NAME = (
    r"(?![\w.-]*\d{4})(?!(?=[0-9a-fA-F-]*\d)[0-9a-fA-F-]{8,}(?![\w.-]))[A-Za-z_][\w.-]{0,63}"
    r"(?![\w.-])"
)
#: What may follow a KeyError's key: the line's end, a note's words or punctuation.
_AFTER_KEY = r"(?=$|[\s,;:.)\]])"
_KEEP_MODULE = (
    # a path rustc could not resolve, whole (:data:`_RUST_PATH_SAID`, its quotes read as
    # ``'`` already): which item of which crate or module is the error, and its fix (a typo,
    # a renamed item, a crate's feature or version); every one was ``unresolved import
    # <q>``, one error
    cued(
        rf"(?P<keep>\bunresolved\s+imports?\s+)(?P<num>'{_RUST_PATH}'(?:, '{_RUST_PATH}'){{0,20}})",
        re.IGNORECASE,
    ),
    cued(
        rf"(?P<keep>\bcannot\s+find\s+(?:[a-z]{{1,20}}[\s,]+){{0,4}}?)(?P<num>'{_RUST_PATH}')"
        rf"(?=\s+in\s+(?:(?:module|crate|enum|trait|struct|union)\s+)?'{_RUST_PATH}')",
        re.IGNORECASE,
    ),
    cued(
        rf"(?P<keep>\bcannot\s+find\s+(?:[a-z]{{1,20}}[\s,]+){{0,4}}?{_KEPT}\s+in\s+"
        rf"(?:(?:module|crate|enum|trait|struct|union)\s+)?)(?P<num>'{_RUST_PATH}')",
        re.IGNORECASE,
    ),
    cued(
        rf"(?P<keep>\b(?:{_MISSING_WORDS}|missing\s+script:"
        # (yum's and dnf's through ansible)
        r"|no\s+package\s+matching)\s+)"
        rf"(?P<num>{_QUOTED_NAME})",
        re.IGNORECASE,
    ),
    # a name a module does not export, and that module (Python's "cannot import name 'x'
    # from 'y' (<path>)": the fix pins or changes that module)
    cued(rf"(?P<keep>\bcannot\s+import\s+name\s+)(?P<num>{_QUOTED_NAME})", re.IGNORECASE),
    cued(
        rf"(?P<keep>\bcannot\s+import\s+name\s+\S+\s+from\s+)(?P<num>{_QUOTED_NAME})",
        re.IGNORECASE,
    ),
    # a name a module does not have, and that module (Python's "module 'numpy' has no
    # attribute 'float'": an API a release removed)
    # (mypy's "Module "numpy" has no attribute "float"" the same)
    cued(
        rf"(?P<keep>\bmodule\s+)(?P<num>{_QUOTED_NAME})(?=\s+has\s+no\s+attribute\b)",
        re.IGNORECASE,
    ),
    cued(
        rf"(?P<keep>\bmodule\s+\S+\s+has\s+no\s+attribute\s+)(?P<num>{_QUOTED_NAME})",
        re.IGNORECASE,
    ),
    # ... and JavaScript's and TypeScript's: webpack's "export 'x' (imported as 'y') was not
    # found in 'z'", Node's "The requested module 'z' does not provide an export named 'x'",
    # tsc's "Module '"z"' has no exported member 'x'" (an alias of it, "as 'y'", is not)
    cued(rf"(?P<keep>\bexport\s+)(?P<num>{_QUOTED_NAME})(?=\s+\(imported\s+as\b)"),
    cued(rf"(?P<keep>\bwas\s+not\s+found\s+in\s+)(?P<num>{_QUOTED_NAME})"),
    cued(rf"(?P<keep>\brequested\s+module\s+)(?P<num>{_QUOTED_NAME})", re.IGNORECASE),
    cued(rf"(?P<keep>\bprovide\s+an\s+export\s+named\s+)(?P<num>{_QUOTED_NAME})"),
    cued(r"(?P<keep>\bModule\s+)(?P<num>'\"[@\w][\w.@/+-]*\"')(?=\s+has\s+no\s+exported\s+member)"),
    cued(rf"(?P<keep>\bhas\s+no\s+exported\s+member\s+(?:named\s+)?)(?P<num>{_QUOTED_NAME})"),
    # the key a mapping has not (Python's KeyError, Django's MultiValueDictKeyError): a key
    # that reads as a name in the code (a dict's key, a column, a setting, an environment
    # variable: 'items', 'user', 'DATABASE_URL', 'cart.total') is which error, as a
    # NameError's name is, and its fix is about that key; one that reads as data (a number,
    # a uuid, a hash, a date, a path, words, anything longer than 64 characters) stays
    # masked, every such KeyError one error (its fix is the lookup, whatever the key)
    cued(
        r"(?P<keep>\b(?:MultiValueDict)?KeyError:\s+)(?P<q>['\"])"
        rf"(?P<bare>{_KEY_NAME})(?P=q){_AFTER_KEY}"
    ),
    # ... typed without its quotes in a note ("KeyError: items"), the line's last word
    cued(rf"(?P<keep>\b(?:MultiValueDict)?KeyError:\s+)(?P<bare>{_KEY_NAME})(?=\.?\s*$)"),
    # ... and the columns pandas could not find of a list asked (``df[["a", "b"]]``):
    # ``KeyError: "['cart_total'] not in index"``
    cued(
        r"(?P<keep>\bKeyError:\s+)"
        rf"(?P<num>\"\['{_KEY_NAME}'(?:, '{_KEY_NAME}'){{0,20}}\] not in index\"){_AFTER_KEY}"
    ),
    # the name C and C++ compilers cannot find (clang's "use of undeclared identifier 'x'",
    # gcc's "'x' was not declared in this scope"): the fix includes, declares or enables it
    cued(rf"(?P<keep>\buse\s+of\s+undeclared\s+identifier\s+)(?P<num>{_QUOTED_NAME})"),
    cued(
        rf"(?P<keep>)(?P<num>{_QUOTED_NAME}|‘[\w:]+’)"
        r"(?=\s+was\s+not\s+declared\s+in\s+this\s+scope)"
    ),
    # ... and in the other compilers and runtimes, a name that cannot be found is the error
    # (its fix imports, declares or adds that one): TypeScript's "Cannot find name 'x'",
    # Swift's "cannot find 'x' in scope", C#'s "The type or namespace name 'x' could not be
    # found" and "The name 'x' does not exist", Python's "name 'x' is not defined", Rust's
    # "cannot find value `x` in this scope" and "use of undeclared type `X`", Ruby's
    # "undefined method `x' for" (a moved or borrowed value's name stays masked: its fix is
    # the pattern, whatever the name)
    cued(rf"(?P<keep>\bCannot\s+find\s+name\s+)(?P<num>{_QUOTED_NAME})"),
    cued(rf"(?P<keep>\bcannot\s+find\s+)(?P<num>{_QUOTED_NAME})(?=\s+in\s+scope\b)"),
    cued(
        r"(?P<keep>\bcannot\s+find\s+(?:value|function|type|struct|macro|trait|module|crate)\s+)"
        rf"(?P<num>{_QUOTED_NAME})(?=\s+in\s+this\s+scope\b)"
    ),
    cued(
        rf"(?P<keep>\bThe\s+(?:type\s+or\s+namespace\s+)?name\s+)(?P<num>{_QUOTED_NAME})"
        r"(?=\s+(?:could\s+not\s+be\s+found|does\s+not\s+exist)\b)"
    ),
    cued(  # (and mypy's "Name "np" is not defined")
        rf"(?P<keep>\bname\s+)(?P<num>{_QUOTED_NAME})(?=\s+is\s+not\s+defined\b)", re.I
    ),
    # pyright's (""np" is not defined (reportUndefinedVariable)")
    cued(
        rf"(?P<keep>)(?P<num>{_QUOTED_NAME})"
        r"(?=\s+is\s+not\s+defined\s+\(reportUndefinedVariable\))"
    ),
    # Lua's nil global, which a typo or a missing require leaves undefined (``attempt to
    # call a nil value (global 'foo')``, also indexed or computed with), and the function a
    # table lacks, called (``(method 'run')``, ``(field 'render')``, as Ruby's undefined
    # method): a nil local's or upvalue's name, or a nil field indexed, stays masked (a value
    # that was nil at run time: its fix is the pattern, whatever the name)
    cued(
        r"(?P<keep>\battempt\s+to\s+[a-z]{1,20}\s+a\s+nil\s+value\s+\(global\s+)"
        rf"(?P<num>{_QUOTED_NAME})(?=\))"
    ),
    cued(
        r"(?P<keep>\battempt\s+to\s+call\s+a\s+nil\s+value\s+\((?:method|field)\s+)"
        rf"(?P<num>{_QUOTED_NAME})(?=\))"
    ),
    cued(rf"(?P<keep>\buse\s+of\s+undeclared\s+type\s+)(?P<num>{_QUOTED_NAME})"),
    cued(
        r"(?P<keep>\bundefined\s+(?:local\s+variable\s+or\s+)?method\s+)"
        r"(?P<num>'[\w?!=]{1,200}')"
    ),
    # the module a type checker cannot find, or finds without types (mypy's "Cannot find
    # implementation or library stub for module named "yaml"", "Library stubs not installed
    # for "yaml"", "Skipping analyzing "x": module is installed, but missing library stubs";
    # pyright's "Import "yaml" could not be resolved", "Stub file not found for "yaml""):
    # the fix installs that one's stubs
    cued(
        r"(?P<keep>\b(?:library\s+stub\s+for\s+module\s+named|stubs\s+not\s+installed\s+for"
        r"|skipping\s+analyzing|stub\s+file\s+not\s+found\s+for)\s+)"
        rf"(?P<num>{_QUOTED_NAME})",
        re.IGNORECASE,
    ),
    cued(rf"(?P<keep>\bImport\s+)(?P<num>{_QUOTED_NAME})(?=\s+could\s+not\s+be\s+resolved\b)"),
    # the types a type checker says do not fit (mypy's "has incompatible type "str | None";
    # expected "str"", "(got "None", expected "str")", "(expression has type "int", variable
    # has type "str")"; pyright's "Argument of type "X" cannot be assigned to parameter "p" of
    # type "Y"", "Type "X" is not assignable to return type "Y""): which types is the error,
    # and its fix (a None check is not a conversion to int); the function's and the
    # parameter's names stay masked, as any name in the code
    *(
        cued(rf"(?P<keep>{before})(?P<num>{_CHECKED_TYPE})", re.IGNORECASE)
        for before in (
            r"\bhas\s+incompatible\s+type\s+",
            rf"\bhas\s+incompatible\s+type\s+{_KEPT};\s+expected\s+",
            r"\(got\s+(?=\"[^\"\n]{1,200}\",\s+expected\s+\")",
            rf"\(got\s+{_KEPT},\s+expected\s+",
            r"\(expression\s+has\s+type\s+",
            rf"\(expression\s+has\s+type\s+{_KEPT},\s+variable\s+has\s+type\s+",
            r"\b(?:argument|expression)\s+of\s+type\s+",
            rf"\btype\s+(?=(?:{_CHECKED_TYPE})\s+is\s+not\s+assignable\s+to\b)",
            rf"\bof\s+type\s+{_KEPT}\s+cannot\s+be\s+assigned\s+to\s+parameter\s+"
            rf"(?:{_QUOTED_NAME})\s+of\s+type\s+",
            rf"{_KEPT}\s+(?:is\s+not\s+assignable\s+to|cannot\s+be\s+assigned\s+to"
            r"|is\s+incompatible\s+with)\s+(?:declared\s+|return\s+|parameter\s+of\s+)?type\s+",
        )
    ),
    # ... and what other tools say is missing, by their own words: the bean type Spring
    # cannot inject, the JDBC driver (its subprotocol) Java cannot find, the module GHC and
    # the library dune cannot find, the method Dart cannot find (the class it is called on
    # stays masked), the permission gcloud was denied, the repository Bazel cannot fetch, the
    # export Bun cannot find, the target make has no rule for, the credential Jenkins has no
    # entry for: the fix adds, grants or names that one
    cued(
        r"(?P<keep>\b(?:required\s+a|No\s+qualifying|defining\s+a)\s+bean\s+of\s+type\s+)"
        r"(?P<num>'[\w.$]{1,300}')",
        re.IGNORECASE,
    ),
    cued(r"(?P<keep>\bNo\s+suitable\s+driver\s+found\s+for\s+)(?P<num>'jdbc:[\w-]{1,50}')", re.I),
    cued(r"(?P<keep>\bCould\s+not\s+find\s+module\s+)(?P<num>‘[\w.']{1,200}’|'[\w.]{1,200}')"),
    cued(r"(?P<keep>\bLibrary\s+)(?P<num>\"[\w.-]{1,200}\")(?=\s+not\s+found\b)"),
    cued(
        r"(?P<keep>\bThe\s+(?:method|getter|setter|operator)\s+)(?P<num>'[^'\n]{1,200}')"
        r"(?=\s+isn't\s+defined\s+for\b)"
    ),
    cued(r"(?P<keep>\bUndefined\s+name\s+)(?P<num>'[\w$]{1,200}')"),
    cued(r"(?P<keep>\bPermission\s+)(?P<num>'[\w.]{1,200}')(?=\s+denied\b)"),
    cued(r"(?P<keep>\bno\s+such\s+package\s+)(?P<num>'@{1,2}[\w.-]{1,200}//[^'\n]{0,200}')"),
    cued(r"(?P<keep>\bExport\s+named\s+)(?P<num>'[\w$]{1,200}')(?=\s+not\s+found\s+in\b)"),
    cued(
        r"(?P<keep>\bNo\s+rule\s+to\s+make\s+target\s+)"
        r"(?P<num>'[^'\n]{1,200}'|‘[^’\n]{1,200}’|`[^'\n]{1,200}')"
    ),
    cued(r"(?P<keep>\bcredentials\s+entry\s+with\s+ID\s+)(?P<num>'[^'\n]{1,200}')", re.I),
    cued(r"(?P<keep>\bMerge\s+conflict\s+in\s+)(?P<num>'[^'\n]{1,200}')$"),
    # the variable or argument terraform's detail names ("An input variable with the name
    # "vpc_cidr" has not been declared", "An argument named "x" is not expected here", "The
    # argument "instance_class" is required")
    cued(
        r"(?P<keep>\b(?:input\s+variable\s+with\s+the\s+name|argument\s+named|The\s+argument)\s+)"
        r"(?P<num>\"[\w.-]{1,200}\")(?=\s+(?:has\s+not\s+been\s+declared|is\s+not\s+expected"
        r"|is\s+required))"
    ),
    # the configmap or secret a pod could not mount
    cued(r'(?P<keep>\b(?:configmap|secret)\s+)(?P<num>"[\w.-]{1,253}")(?=\s+not\s+found\b)'),
    # the module Deno cannot find (a local one by its name, above)
    cued(r'(?P<keep>\bModule\s+not\s+found\s+)(?P<num>"[^"\n]{1,300}")'),
    # the package pnpm found a peer of unmet, and that peer (read out of its tree above)
    cued(r"(?P<keep>\bUnmet\s+peer\s+dependencies:\s+)(?P<num>'[^'\n]{1,200}')", re.I),
    cued(r"(?P<keep>\b(?:unmet|missing)\s+peer\s+)(?P<num>'[^'\n]{1,200}')"),
    # GHC's and stack's error codes ("[GHC-88464]", "[S-7282]"): which error it is
    cued(r"(?P<keep>\[(?:GHC|S)-)(?P<num>\d{1,6})(?=\])"),
    # the package of an ES module Node could not require() (read out of its path above)
    cued(r"(?P<keep>\brequire\(\)\s+of\s+ES\s+Module\s+)(?P<num>'[@\w.-][\w.@/-]*')", re.I),
    # the import a bundler could not resolve (vite's Rollup: "failed to resolve import
    # "@acme/ui/button" from …", and vite's import analysis: "Failed to resolve import "dayjs"
    # from …"; its importer, a path, is masked)
    cued(r"(?P<keep>\bfailed\s+to\s+resolve\s+import\s+)(?P<num>\"[^\"\s]{1,200}\")", re.I),
    # the element a Playwright expectation waited for ("Locator: getByRole('button', { name:
    # 'Sign in' })"): which one timed out is the failure
    cued(r"(?P<keep>\bexpect\(locator\)\.\w+\(\)\s+Locator:\s+)(?P<num>\S[^\n]{0,300})$"),
    # the crate cargo cannot find a version of ("failed to select a version for the
    # requirement `serde = "^9.0"`": the crate's name is kept, its range is not)
    cued(
        r"(?P<keep>\bfailed\s+to\s+select\s+a\s+version\s+for\s+the\s+requirement\s+)"
        r"`(?P<num>[\w-]{1,200})\s*=[^`\n]{0,200}`"
    ),
    # the constraint PostgreSQL says a row violates ("violates unique constraint
    # \"users_email_key\"", "foreign key constraint \"orders_user_id_fkey\""): it names the
    # table and columns, whose fix is this one (a duplicate e-mail is not a primary key's)
    cued(
        r"(?P<keep>\bviolates\s+(?:unique|foreign\s+key|check|exclusion|not-null)\s+"
        r"constraint\s+)(?P<num>\"[\w.$-]{1,200}\")"
    ),
    # ... and the package whose configuration file it could not find ("Could not find a package
    # configuration file provided by "fmt"", the line under it)
    cued(r"(?P<keep>\bconfiguration\s+file\s+provided\s+by\s+)(?P<num>\"[\w.+-]{1,200}\")", re.I),
    # the package CMake's find_package could not find ("By not providing "FindBoost.cmake"")
    cued(r"(?P<keep>\bby\s+not\s+providing\s+)(?P<num>\"Find[\w.+-]{1,200}\.cmake\")", re.I),
    cued(
        r"(?P<keep>\bfatal\s+error:\s+)"
        r"(?P<num>'?[\w.+-]+(?:/[\w.+-]+)*\.(?:h|hh|hpp|hxx|H)'?)(?=:\s|\s+file\s+not\s+found)"
    ),
    # a command Windows cannot find (cmd.exe's "'npm' is not recognized as an internal or
    # external command", PowerShell's "The term 'npm' is not recognized as the name of …")
    cued(
        r"(?P<keep>\bthe\s+term\s+|)(?P<num>'[^'\n]{1,200}')"
        r"(?=\s+is\s+not\s+recognized\s+as\s+(?:an\s+internal|the\s+name)\b)",
        re.IGNORECASE,
    ),
    # the reason a Node promise was rejected with (not an Error: no class to tell them apart)
    cued(r"(?P<keep>\brejected\s+with\s+the\s+reason\s+)(?P<num>\"[^\"\n]{1,200}\")"),
    # the symbol a linker could not find (GNU ld's `name' quotes, lld's plain name)
    cued(r"(?P<keep>\bundefined\s+reference\s+to\s+)(?P<num>[`'][^'`\n]{1,200}')"),
    cued(r"(?P<keep>\bundefined\s+symbol:\s+)(?P<num>\S{1,200})"),
    # a library pkg-config cannot find ("Package 'libffi', required by 'virtual:world', not
    # found"; autoconf's "No package 'gtk+-3.0' found")
    cued(rf"(?P<keep>\bPackage\s+)(?P<num>{_QUOTED_NAME})(?=,\s+required\s+by\b)"),
    cued(rf"(?P<keep>\bNo\s+package\s+)(?P<num>{_QUOTED_NAME})(?=\s+found\b)"),
    # ... and the package npm could not find ("404 '@acme/ui' is not in this registry.", and
    # its name in the registry's URL, read out of it above: "404 Not Found - GET
    # https://registry.npmjs.org/yaml - Not found", pnpm's "GET …/yaml: Not Found - 404")
    cued(rf"(?P<keep>)(?P<num>{_QUOTED_NAME})(?=\s+is\s+not\s+in\s+(?:this|the\s+npm)\s+registry)"),
    # (npm 11's "404 The requested resource 'yaml-foo' could not be found or you do not have
    # permission to access it", its range left out above)
    cued(
        rf"(?P<keep>\b404\s+The\s+requested\s+resource\s+)(?P<num>{_QUOTED_NAME})"
        rf"(?={_NPM_11_NOT_FOUND})",
        re.IGNORECASE,
    ),
    # (npm 6's "404 Not Found: yaml-foo@latest" and yarn classic's "An unexpected error
    # occurred: "https://registry.yarnpkg.com/yaml-foo: Not found"", read the same way)
    cued(
        r"(?P<keep>\b(?:(?:404\s+Not\s+Found\s+-|ERR_PNPM_FETCH_404)\s+GET|404\s+Not\s+Found:"
        r"|An\s+unexpected\s+error\s+occurred:)\s+)"
        r"(?P<num>'@?[\w.-]{1,214}(?:/[\w.-]{1,214})?')",
        re.IGNORECASE,
    ),
    # a Windows error's HRESULT ("WslRegisterDistribution failed with error: 0x80370102",
    # "error code 0x80070643", "HRESULT: 0x80004005"): a failure code (its high bit set, eight
    # digits) after the word that says so is the error, as an exit code is, not a hex id
    cued(
        r"(?P<keep>\b(?:error|code|hresult)\s*[:=]?\s*(?:\w+/)*)(?P<num>0x[89a-f][0-9a-f]{7})\b",
        re.IGNORECASE,
    ),
    # a program that could not be found, run by Go's os/exec or a container's runtime
    # ('exec: "gcc": executable file not found in $PATH'), as cargo's linker (linker `cc` not
    # found) or setuptools' compiler ("command 'gcc' failed: No such file or directory")
    cued(rf"(?P<keep>\bexec:\s+)(?P<num>{_QUOTED_NAME})(?=:\s+executable\s+file\s+not\s+found)"),
    cued(rf"(?P<keep>\blinker\s+)(?P<num>{_QUOTED_NAME})(?=\s+not\s+found)"),
    cued(
        rf"(?P<keep>\bcommand\s+)(?P<num>{_QUOTED_NAME})"
        r"(?=\s+failed:\s+No\s+such\s+file\s+or\s+directory)"
    ),
    # the class the JVM could not load, named with slashes ("NoClassDefFoundError: org/slf4j/
    # LoggerFactory"), and the method it could not link (quoted since Java 11): the fix adds
    # or pins the library that has it
    cued(r"(?P<keep>\bNoClassDefFoundError:\s+)(?P<num>[\w$]+(?:/[\w$]+)+)(?![\w/.])"),
    cued(r"(?P<keep>\bNoSuchMethodError:\s+)(?P<num>'[^'\n]{1,300}'|\S{1,300})"),
    # and the class of the exception a C++ program died of
    cued(r"(?P<keep>\bthrowing\s+an\s+instance\s+of\s+)(?P<num>'[^'\n]{1,200}')"),
    # the package Go cannot find (and old Go's "cannot find module providing package x"),
    # and the file Ruby cannot require ("cannot load such file -- nokogiri", the gem's; a
    # path is masked as paths are)
    cued(
        r"(?P<keep>\b(?:no\s+required\s+module\s+provides|cannot\s+find\s+module\s+providing)"
        r"\s+package\s+|\bpackage\s+(?=\S+\s+is\s+not\s+in\s+(?:std|GOROOT)))"
        r"(?P<num>[\w.-]+(?:/[\w.@+-]+)*)"
    ),
    cued(
        r"(?P<keep>\bcannot\s+load\s+such\s+file\s+--\s+)(?P<num>[\w-][\w.-]{0,200}"
        r"(?:/[\w.-]{1,200}){0,20})(?=\s|$)"
    ),
    # Names a tool prints bare, kept in quotes (``bare``), as another name of the same
    # error is another error: the module Python 2 names (and a person types) without quotes
    # (``No module named yaml`` is ``'yaml'``'s error, qa-s69a F1), the lateinit property
    # Kotlin found unset, the function Erlang
    # and Elixir have no clause of (``shop_server:start/0`` is not ``stop/0``), which kind of
    # memory the JVM ran out of (``Metaspace`` is not the heap: its fix is another flag), and
    # PHP's TypeError's function, parameter and types (``App\Cart::add(): Argument #1
    # ($item) must be of type App\Item, null given``)
    cued(
        r"(?P<keep>\bno\s+module\s+named\s+)(?P<bare>[A-Za-z_][\w.]{0,200})(?![\w.'\"`])",
        re.IGNORECASE,
    ),
    # the command a shell could not find, as :data:`_SHELL_NOT_FOUND` words it (``fd`` is
    # not ``rg``: its fix installs that one; qa-s69a, helper's F1 leftover: the rg fix came
    # back at 0.67 for fd)
    cued(r"(?P<keep>\bcommand\s+not\s+found:\s+)(?P<bare>[\w.+@-]{1,200})(?![\w.+@/-])"),
    cued(
        r"(?P<keep>\blateinit\s+property\s+)(?P<bare>[\w$]{1,200})"
        r"(?=\s+has\s+not\s+been\s+initialized\b)"
    ),
    cued(
        r"(?P<keep>\bundefined\s+function\s+)"
        r"(?P<bare>(?:'[^'\s]{1,200}'|[\w@.]{1,200}):[\w@]{1,200}/\d{1,3})\b"
    ),
    cued(
        r"(?P<keep>\bfunction\s+)(?P<bare>(?:[A-Z][\w.]{0,200}|:\w{1,200})\.[\w?!]{1,200}"
        r"/\d{1,3})(?=\s+is\s+undefined\b)"
    ),
    # (the kinds the JVM names; words a note adds after one are not part of it)
    cued(
        r"(?P<keep>\bOutOfMemoryError:\s+)(?P<bare>Java\s+heap\s+space|Metaspace|PermGen\s+space"
        r"|Compressed\s+class\s+space|GC\s+overhead\s+limit\s+exceeded|Direct\s+buffer\s+memory"
        r"|Requested\s+array\s+size\s+exceeds\s+VM\s+limit|unable\s+to\s+create\s+native\s+thread"
        r"|Map\s+failed)\b",
        re.IGNORECASE,
    ),
    cued(
        r"(?P<keep>\b(?:TypeError|ArgumentCountError|ValueError):\s+)"
        r"(?P<bare>[\w\\]{1,200}(?:::\w{1,200})?)(?=\(\):\s+Argument\s+#)"
    ),
    cued(r"(?P<keep>\bArgument\s+#\d{1,3}\s+\()(?P<bare>\$\w{1,200})(?=\)\s+must\s+be\b)"),
    # ... and, as bare, the IAM action AWS denied, the .NET argument that was null, the
    # SQLAlchemy dialect, the image docker could not pull, the SwiftUI environment object, the
    # PostgreSQL function (by its name: its schema and argument types are how it was called),
    # the resource Kubernetes forbade and its API group (any verb: an informer is refused "list"
    # and "watch" for one missing Role; metrics.k8s.io's nodes are not the core's), the
    # terraform resource not declared, the case object a Scala match did not cover (another
    # value of one class, an Int or an instance, is the same missing default), the types of a Go
    # interface conversion, the name Go calls undefined; not the host or port a connection
    # failed to (see _FP_RULES), nor an errno (macOS's and Windows' numbers for one failure are
    # not Linux's)
    cued(
        r"(?P<keep>\bis\s+not\s+authorized\s+to\s+perform:?\s+)"
        r"(?P<bare>[\w-]{1,100}:[\w*]{1,200})"
    ),
    cued(r"(?P<keep>\(Parameter\s+)(?P<num>'[\w.]{1,200}')(?=\))"),
    cued(r"(?P<keep>\bParameter\s+name:\s+)(?P<bare>[\w.]{1,200})"),
    cued(r"(?P<keep>\bCan't\s+load\s+plugin:\s+)(?P<bare>[\w.]{1,200}:[\w.]{1,200})"),
    cued(
        r"(?P<keep>\bpull\s+access\s+denied\s+for\s+)"
        r"(?P<bare>(?:[\w.-]{1,200}:\d{1,5}/)?[\w./-]{1,200})(?:[:@][\w.:@-]{1,200})?(?=,)"
    ),
    cued(r"(?P<keep>\bNo\s+ObservableObject\s+of\s+type\s+)(?P<bare>\w{1,200})(?=\s+found\b)"),
    cued(
        r"(?P<keep>\benvironmentObject\(_:\)\s+for\s+)(?P<bare>\w{1,200})"
        r"(?=\s+may\s+be\s+missing\b)"
    ),
    cued(
        r"(?P<keep>\bfunction\s+(?:\w{1,100}\.)?)(?P<bare>\w{1,200})"
        r"(?=\([^()\n]{0,200}\)\s+does\s+not\s+exist\b)"
    ),
    cued(
        r"(?P<keep>\(Forbidden\):\s+)(?P<bare>[\w/-]{1,200})(?:\.[\w.-]{1,200})?"
        r"(?=\s+(?:\"[^\"\n]{0,253}\"\s+)?is\s+forbidden:)"
    ),
    cued(r"(?P<keep>\bresource\s+)(?P<num>\"[\w./-]{1,200}\")(?=\s+in\s+API\s+group\b)"),
    cued(r"(?P<keep>\bin\s+API\s+group\s+)(?P<num>\"[\w.-]{0,253}\")"),
    cued(
        r"(?P<keep>\bA\s+(?:managed|data)\s+resource\s+)"
        r"(?P<num>\"[\w-]{1,200}\"\s+\"[\w-]{1,200}\")(?=\s+has\s+not\s+been\s+declared\b)"
    ),
    # (Rust's io::Error by its kind, "Os { code: 2, kind: NotFound, …" is not
    # "PermissionDenied", whatever its platform's errno: not _RUST_UNNAMED_IO_KINDS; Rails'
    # model not found, "Couldn't find User with 'id'=5")
    cued(
        r"(?P<keep>\bOs\s+\{\s+code:\s+-?\d{1,5},\s+kind:\s+)"
        rf"(?P<bare>(?!(?:{'|'.join(_RUST_UNNAMED_IO_KINDS)})\b)\w{{1,100}})(?=,)"
    ),
    cued(
        r"(?P<keep>\bOs\s+\{\s+code:\s+)(?P<num>-?\d{1,5})"
        r"(?=,\s+kind:\s+(?:Other|Uncategorized),)"
    ),
    cued(
        r"(?P<keep>\bCouldn't\s+find\s+)(?P<bare>[A-Z]\w{0,200}(?:::\w{1,200}){0,10})(?=\s+with\b)"
    ),
    cued(
        r"(?P<keep>\bMatchError:\s+)(?P<bare>\w{1,200})"
        r"(?=\s+\(of\s+class\s+[\w.$]{0,300}\$\w{1,200}\$\))"
    ),
    cued(r"(?P<keep>\(of\s+class\s+)(?P<bare>[\w.$]{0,300}\$\w{1,200}\$)(?=\))"),
    cued(
        r"(?P<keep>\binterface\s+conversion:\s+[\w.*]{1,200}(?:\s+\{\})?\s+is\s+)"
        r"(?P<bare>[\w.*\[\]{}]{1,200})(?=,\s+not\s+)"
    ),
    cued(
        r"(?P<keep>\binterface\s+conversion:\s+[\w.*]{1,200}(?:\s+\{\})?\s+is\s+\x00[a-z]+\x00,"
        r"\s+not\s+)(?P<bare>[\w.*\[\]{}]{1,200})"
    ),
    cued(r"(?P<keep>^(?:\S+:\d+:\d+:\s+)?undefined:\s+)(?P<bare>[\w.]{1,200})$"),
    cued(
        r"(?P<keep>\)\s+must\s+be\s+of\s+type\s+)(?P<bare>[\w\\|?]{1,200})"
        r"(?=,\s+[\w\\]{1,200}\s+given\b)"
    ),
    cued(
        r"(?P<keep>\)\s+must\s+be\s+of\s+type\s+\x00[a-z]+\x00,\s+)(?P<bare>[\w\\]{1,200})"
        r"(?=\s+given\b)"
    ),
)
#: A structured log line's message is quoted (logfmt ``msg="failed to connect"``, JSON
#: ``"error":"dial tcp: …"``), as is the error yarn 1 ran into (``An unexpected error
#: occurred: "…: ESOCKETTIMEDOUT".``): it is the error, not a quoted name, so its quotes are
#: dropped and what varies inside it is masked as anywhere else.
_LOG_MESSAGE = cued(
    r"(?P<key>\b(?:msg|message|err|error|exception|reason)=|\"(?:msg|message|err|error"
    r"|exception|reason|stderr)\"\s*:\s*|\bAn\s+unexpected\s+error\s+occurred:\s+)"
    r"\"(?P<value>(?:[^\"\\\n]|\\.){0,2000}?)\"",
    re.IGNORECASE,
)
#: Quoted text that is itself an error code stays (``'E2BIG'``, ```E0382```, ``"ERR_X"``),
#: and so does Python's ``'NoneType'``: a value that was None is its own error (guard it),
#: as Node's unquoted "of undefined" and "of null" are, not one of a type named in the code.
_QUOTED_CODE = cued(r"^(?:E[A-Z0-9]{2,}|ERR_[A-Z0-9_]+|[A-Z]{1,4}\d{3,5}|NoneType)$")


#: An errno inside quoted text (requests quotes its cause: "…: [Errno 111] Connection
#: refused"), its number already kept (a placeholder here): it stays beside the mask.
_QUOTED_ERRNO = cued(r"\[errno\s*\x00[a-z]+\x00\]", re.IGNORECASE)


#: A quoted token (gcc's "expected ';' before '}' token", tsc's "',' expected.", Python's
#: "'(' was never closed", JSON.parse's "Unexpected token '<'") is the syntax error itself,
#: not a name: it stays, in one kind of quotes (gcc quotes ‘;’ so in a UTF-8 locale). An
#: ellipsis (``…``) is a name left out, no token.
_QUOTED_TOKEN = cued(r"^[^\w\s'\"`‘’“”…]{1,3}$")


def _mask_quoted(m: re.Match[str]) -> str:
    inner = m.group(0)[1:-1].strip()
    if _QUOTED_CODE.match(inner):
        return inner
    if _QUOTED_TOKEN.match(inner):
        return f"'{inner}'"
    kept = _QUOTED_ERRNO.findall(inner) if "\x00" in inner else []
    return f"<q {' '.join(kept)}>" if kept else "<q>"


_Repl = str | Callable[[re.Match[str]], str]
#: A host's name or address (``db``, ``api.example.com``, ``10.0.4.12``), not its end's dot.
_HOST = r"[A-Za-z0-9](?:[\w.-]*[\w-])?"
#: How much of a signature its fingerprint reads.
FINGERPRINT_MAX_CHARS = 2000
_FP_RULES: tuple[tuple[re.Pattern[str], _Repl], ...] = (
    (
        cued(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
        "<uuid>",
    ),
    # (not over a quote that closes it: a quoted URL is a quoted value, as an ssh remote is)
    (cued(r"\b[a-z][a-z0-9+.-]*://[^\s'\"`]+", re.I), "<url>"),
    # a host an error names unquoted (a quoted one is masked below): the same failure to
    # resolve or reach a server is one error whichever host it was (a compose service in
    # CI, localhost on a laptop): curl's and git's "Could not resolve host: X", ssh's
    # "Could not resolve hostname X:" and "connect to host X port 22", curl's "Failed to
    # connect to X port 443", Node's "getaddrinfo ENOTFOUND X", Go's "dial tcp: lookup X"
    # and "lookup X on 127.0.0.11:53:", redis-py's "connecting to X:6379", Java's
    # "UnknownHostException: X"; the words after the same verbs in a sentence are no host
    (
        cued(
            r"(\b(?:resolve\s+host(?:name)?:?|getaddrinfo\s+E[A-Z_]+|UnknownHostException:"
            rf"|dial\s+(?:tcp|udp)[46]?:\s+lookup)\s+){_HOST}",
            re.I,
        ),
        r"\1<host>",
    ),
    (
        cued(
            rf"(\b(?:connect\s+to\s+host|failed\s+to\s+connect\s+to)\s+){_HOST}(?=\s+port\b)", re.I
        ),
        r"\1<host>",
    ),
    (cued(rf"(\blookup\s+){_HOST}(?=\s+on\s+\S+:\d+:\s)"), r"\1<host>"),
    (cued(rf"(\bconnecting\s+to\s+){_HOST}(?=:\d)", re.I), r"\1<host>"),
    # an IPv6 address a server listens on (Node's ":::3000", "[::1]:3000", "::ffff:…"),
    # read as a number as an IPv4 one is ("127.0.0.1:3000" is one number below)
    (cued(r"(?<![\w:\[])(?:\[::1?\]|::(?:1|ffff)?)(?=:\d)", re.I), "0"),
    # and any other IPv6 address (libpq's "(::1)", "(fe80::1%eth0)", "2001:db8::5"); not a
    # path of names ("std::vector", "tests::add_one", "cafe::beef": no digit), nor a slice
    # subscripting a name, a call or an index ("data[::2]", "a[1::2]", "f()[::2]")
    (
        cued(
            r"(?<![\w:.%])(?<![\w)\]]\[)(?=[0-9a-f:]*\d)(?=[0-9a-f:]*?::|(?:[0-9a-f]{1,4}:){7})"
            r"(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?:%\w+)?(?![\w:])",
            re.I,
        ),
        "0",
    ),
    # the host an ansible task ran on ("fatal: [web1]: FAILED! => …", "failed: [db-2]
    # (item=x) => …"): one of an inventory's, not the failure
    (
        cued(
            r"^((?:fatal|failed|ok|changed|skipping|ignoring|unreachable): \[)[^\]\n]{1,200}"
            r"(?=\](?::|\s+\(item=|\s+=>))",
            re.I,
        ),
        r"\1<host>",
    ),
    # a date and time inside the message (a certificate's "current time … is after …"): its
    # parts joined by T, Z and colons escaped the number rule
    (
        cued(
            r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
            r"(?:Z|\s?[+-]\d{2}:?\d{2})?(?![\w:])"
        ),
        "<time>",
    ),
    # the ids a cloud's API gives each request (the AWS SDK's "RequestID: 8KX1…, HostID:
    # zz9+…=", S3's "x-amz-request-id"): a new one every call
    (
        cued(
            r"(\b(?:request\s*id|host\s*id|x-amz-request-id|x-amz-id-2|x-ms-request-id)"
            r"\s*[:=]\s*)[^\s,;)]{1,200}",
            re.I,
        ),
        r"\1<id>",
    ),
    (cued(r"\b0x[0-9a-f]+\b", re.I), "<hex>"),
    # Windows paths, with optional :line:col (and one a long signature shortened: "…\\x.cs")
    (cued(r"(?<![\w/])(?:[A-Za-z]:|…)\\[^\s:\"'`<>|]+(?::\d+)*"), "<path>"),
    # POSIX paths: absolute, ./, ../, ~/, …/ (a long signature's shortened path);
    # relative ones need two slashes or a file extension (so "and/or" stays; the file's name
    # may have dots before it, "src/cart.test.js", as an absolute path's may); with optional
    # :line:col, or an image's tag that starts with a digit ("docker.io/acme/web:1.2.3",
    # ":3.12-slim": its number's rest was left out of the mask, "<path>.2.3")
    (
        cued(
            # (and a URL path's query: "/api/users?page=2" is the path it asked)
            r"(?<![\w<>])(?:~|\.{1,2}|…)?/(?:[\w.@+-]+/)*[\w.@+-]+/?(?::\d+(?:[.-]\w+)*)*"
            r"(?:\?[^\s'\"`]*)?"
            r"|(?<![\w/<>])[\w.@+-]+(?:/[\w.@+-]+){2,}/?(?::\d+(?:[.-]\w+)*)*"
            r"|(?<![\w/<>])[\w.@+-]+/(?:[\w@+-]+/)*[\w@+-]+(?:\.[\w@+-]+)*\.\w{1,10}"
            r"(?::\d+(?:[.-]\w+)*)*"
        ),
        "<path>",
    ),
    # bare file names with a known extension, with optional :line:col or (line,col); not a
    # package in a class's qualified name ("java.sql.SQLException", "Newtonsoft.Json.
    # JsonReaderException", "org.yaml.snakeyaml.…"): a class, capitalised, follows it
    (
        cued(
            rf"(?<![\w/.<>-])[\w.-]+\.(?:{_EXTS})\b(?!(?:\.[a-z_][\w$]*)*\.(?-i:[A-Z]))"
            r"(?:(?::\d+)+|\(\d+(?:,\d+)?\))?",
            re.I,
        ),
        "<path>",
    ),
    # ids a run makes up: long tokens of digits and lowercase letters that are not hex
    # (buildkit's cache refs; hex ids are masked below), and a Kubernetes pod's name
    # (its ReplicaSet's hash and its own suffix, in Kubernetes' vowel-less alphabet)
    (cued(r"\b(?=[a-z0-9]*\d)(?=[a-z0-9]*[g-z])[a-z0-9]{20,}\b"), "<id>"),
    (
        cued(
            r"(?<=[a-z0-9])-[bcdfghjklmnpqrstvwxz2-9]{8,10}"
            r"-[bcdfghjklmnpqrstvwxz2-9]{5}(?![a-z0-9])"
        ),
        "-<pod>",
    ),
    # long hex ids (commit hashes, object ids) that contain at least one digit
    (cued(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b", re.I), "<hex>"),
)
#: The rules that mask a signature's literals, its quoted values and numbers (after
#: :data:`_FP_RULES`): not in a failed assert's, whose values are the failure.
_LITERAL_RULES: tuple[tuple[re.Pattern[str], _Repl], ...] = (
    # quoted identifiers / values
    (cued(r"(?<![\w\\])'[^'\n]{0,200}?'(?!\w)"), _mask_quoted),
    (cued(r"(?<!\\)\"[^\"\n]{0,200}?(?<!\\)\""), _mask_quoted),
    (cued(r"`[^`\n]{0,200}?`"), _mask_quoted),
    # Ruby quotes a name `like this' (once its location, which quotes the method so, is cut
    # off; an expression so quoted, as a C assert's `count > 0', is not a name; an operator
    # method, `+' or `[]', is one)
    (cued(r"`[\w:#.<>?!=@$+*/%&|^~\[\]-]{1,200}'"), _mask_quoted),
    (cued(r"‘[^’\n]{0,200}’|“[^”\n]{0,200}”"), _mask_quoted),
    # versions (v18.17.0) and numbers, with a unit (0.12s, 512mb, 80%); not inside
    # identifiers such as E0382 or TS2322
    (cued(r"\bv\d+(?:\.\d+)+\b"), "<n>"),
    # durations of several units (Kubernetes ages, Go: 4m58s, 1h2m3.5s) and the repeat
    # count of a Kubernetes event ("x17 over 4m")
    (
        cued(
            r"(?<![\w.])\d+(?:\.\d+)?(?:ms|us|µs|ns|h|m|s)"
            r"(?:\d+(?:\.\d+)?(?:ms|us|µs|ns|h|m|s))+(?!\w)"
        ),
        "<n>",
    ),
    (cued(r"\bx\d+(?=\s+over\b)"), "x<n>"),
    # (a size's unit also after a space, "20.00 MiB" as "512mb": "<n> mib" and "<n> gib" were
    # two fingerprints of one out-of-memory error)
    (
        cued(
            r"(?<![\w.])[-+]?\d+(?:[.,:]\d+)*(?:ms|s|m|h|[kmgt]i?b|b|%|\s[kmgtp]i?b\b)?(?!\w)",
            re.I,
        ),
        "<n>",
    ),
)


#: npm 10 prints ``npm error`` where npm 9 and older printed ``npm ERR!``: one error.
_NPM_ERR = cued(r"^npm\s+ERR!(?=\s|$)", re.IGNORECASE)


#: Node before 16: ``Cannot read property 'x' of undefined``; since: ``Cannot read
#: properties of undefined (reading 'x')`` (``set`` / ``setting`` alike): one error.
_NODE_OLD_PROPERTY = cued(
    r"\bCannot\s+(?P<verb>read|set)\s+property\s+(?P<name>'[^'\n]{0,200}'|\"[^\"\n]{0,200}\")"
    r"\s+of\s+(?P<what>undefined|null)\b"
)


def _node_property_now(m: re.Match[str]) -> str:
    doing = "reading" if m.group("verb") == "read" else "setting"
    return f"Cannot {m.group('verb')} properties of {m.group('what')} ({doing} {m.group('name')})"


#: Ruby 3.3+ names the receiver of a method it cannot find without inspecting it (``for
#: nil``, ``for an instance of User``, ``for class User``, ``for main``), where 3.2 and older
#: said ``for nil:NilClass``, ``for #<User:0x…>`` (or a record's inspect, ``#<User id: 1,
#: …>``), ``for "abc":String``, ``for User:Class``, ``for main:Object``: one error (also in
#: the parentheses of Rails' log, ``NoMethodError (undefined method … for nil:NilClass)``).
_RUBY_OLD_RECEIVER = cued(
    r"(?P<head>\bundefined\s+(?:local\s+variable\s+or\s+)?method\s+\S{1,200}\s+for\s+)"
    r"(?P<receiver>\S[^\n]{0,300}?)(?=\s*\((?:NoMethodError|NameError)\)|\):|\)?\s*$)"
)
_RUBY_WORDS = {"nil:NilClass": "nil", "true:TrueClass": "true", "false:FalseClass": "false"}
_RUBY_INSPECTED = cued(
    r"^#<(?P<cls>[A-Z][\w:]*)[:\s][^\n]*>$|^(?P<value>.+?)(?<!:):(?!:)(?P<of>[A-Z][\w:]*)$"
)


#: Ruby 3.4 quotes the method it cannot find 'so' where 3.3 and older quoted it `so': one
#: error (its name kept: the method is the error).
_RUBY_OLD_METHOD_QUOTES = cued(
    r"(\bundefined\s+(?:local\s+variable\s+or\s+)?method\s+)`([^'`\s]{1,200})'"
)


def _ruby_receiver_now(m: re.Match[str]) -> str:
    receiver = m.group("receiver")
    if receiver in _RUBY_WORDS or receiver == "main:Object":
        return m.group("head") + _RUBY_WORDS.get(receiver, "main")
    inspected = _RUBY_INSPECTED.match(receiver)
    if inspected is None:
        return m.group(0)
    if inspected.group("cls"):
        return f"{m.group('head')}an instance of {inspected.group('cls')}"
    of = inspected.group("of")
    if of in ("Class", "Module"):
        return f"{m.group('head')}{of.lower()} {inspected.group('value')}"
    return f"{m.group('head')}an instance of {of}"


#: The thread a Rust program panicked in is named after the test that failed (``thread
#: 'tests::adds' panicked``; ``'main'`` in a program): a name, not a quoted value, so its
#: quotes are dropped (what varies in it, a worker's number, is masked as anywhere else);
#: the thread's id recent Rust prints after it (``thread 'main' (1193) panicked``), which
#: every run changes, is left out (rules 32: it was kept, and the name masked as a value).
_RUST_THREAD = cued(r"^thread\s+'(?P<name>[^'\s]{1,200})'(?:\s+\(\d{1,20}\))?(?=\s+panicked\b)")


#: What a runtime says before an exception's class: a browser's ``Uncaught`` (``(in
#: promise)``), .NET's ``Unhandled exception.``, the JVM's ``Exception in thread "main"``,
#: a chain's ``Caused by:``. The same exception quoted alone, or logged by a framework, is
#: the same error (also a bare ``Error``: React's "Uncaught Error: Too many re-renders").
_EXCEPTION_INTRO = cued(
    r"^(?:Uncaught(?:\s+\(in\s+promise\))?|Unhandled(?:\s+exception\.)?|Caused\s+by:"
    r"|Exception\s+in\s+thread\s+\"[^\"\n]{0,200}\")\s+"
    r"(?=(?:[A-Za-z_][\w$]*\.)*(?:[A-Z][\w$]*\+)?(?:[A-Z][\w$]*)?(?:Error|Exception|Rejection)\b)"
)


#: .NET prints some exceptions' HResult after their class (``SqlException (0x80131904):
#: …``), a Win32Exception's its native error code (``SocketException (111): …``, Mono's
#: ``SocketException (0x80004005): …``), as its ``ToString()`` does, not as a log or a
#: message quotes it: one error (a nested class's too: ``SocketExceptionFactory+
#: ExtendedSocketException (111)``).
_DOTNET_HRESULT = cued(
    r"^((?:[A-Za-z_][\w$]*\.)*(?:[A-Z][\w$]*\+)?[A-Z][\w$]*(?:Error|Exception))"
    r"\s+\((?:0x[0-9A-Fa-f]{1,16}|\d{1,10})\)(?=:)"
)


#: MSBuild names the project after an error (``… [C:\src\Shop\Shop.csproj]``, ``[/src/Shop.
#: csproj::TargetFramework=net8.0]``), where .NET 8's terminal logger names it above: one error.
_MSBUILD_PROJECT = cued(r"\s+\[[^\[\]\n]{1,300}\.\w{2,8}proj(?:::[^\[\]\n]{0,200})?\]$")


#: git push names the ref the remote refused (``! [rejected] main -> main (fetch first)``):
#: the reason is the error, on any branch.
_GIT_REJECTED_REF = cued(r"^(!\s+\[(?:remote\s+)?rejected\])\s+\S+\s+->\s+\S+")


#: docker build (BuildKit) says why a step failed twice: under the step (``#9 ERROR: process
#: "/bin/sh -c npm ci" did not complete successfully: exit code: 137``) and last (``ERROR:
#: failed to solve: process …``): one error.
_BUILDKIT_FAILED_TO_SOLVE = cued(r"^(ERROR:\s+)failed\s+to\s+solve:\s+(?=process\s)", re.I)

#: The level word before a message (psql's and gcc's ``ERROR: …``, ``error: …``, Node's bare
#: ``Error: …``), which a log that stamps its lines gives apart (PostgreSQL's server log:
#: ``2024-05-01 12:00:01 UTC [4242] ERROR:  duplicate key …``) and a note often leaves out:
#: one error with it or without (and alembic's ``FAILED: …``, not ansible's ``failed: [host]``).
_LEVEL_WORD = cued(r"^(?:error:\s+(?=\S)|failed:\s+(?=[^\s[]))", re.IGNORECASE)

#: pytest's failed assert (``assert 401 == 200``, ``assert 'draft' == 'published'``): its values
#: are what failed; another status, another value is another failure.
_ASSERT = cued(
    r"^(?:assert\s|Assert\.\w+\(\)\s+Failure\b)"
    r"|\bexpect\(received\)\.\w+\(expected\)[^\n]*\b[Ee]xpected:"
    # chai's (vitest's, mocha's): "AssertionError: expected 500 to be 201"
    r"|\bAssertionError:\s+expected\s[^\n]{1,300}?\sto\s+(?:not\s+)?(?:be|equal|eql|deep"
    r"|have|include|contain|match|throw)\b"
    # node:assert's (mocha's): "AssertionError [ERR_ASSERTION]: 401 == 200", "… Expected
    # values to be strictly equal: 6 !== 5" (its values, read from the line under it)
    r"|\bAssertionError\s\[ERR_ASSERTION\]:\s"
    # unittest's (a TestCase's assert methods'): "AssertionError: 6 != 5", "Lists differ: [1,
    # 2] != [1, 3]", "'admin' not found in ['user']", "0 is not true", "1 not greater than 2"
    r"|\bAssertionError:\s[^\n]{0,300}?\S\s(?:!=|==|(?:unexpectedly\s)?found\sin\s|is\snot\s"
    r"(?:true|false|None)$|not\s(?:less|greater)\sthan\s)"
    # Rust's assert_eq!/assert_ne! panic: "assertion `left == right` failed left: 401 right:
    # 200" (its values, read from the lines under it; older Rust's said as this)
    r"|\bassertion\s`left\s[=!]=\sright`\sfailed\b"
)

#: A message's closing full stop (tsc's, GitHub Actions' "… exit code 137."), which a note
#: that quotes the error often leaves out; not an ellipsis.
_FULL_STOP = cued(r"(?<![.…])\.$")

#: npm names the package it could not find with the range it was asked for (``'@acme/ui@^2.0.0'
#: is not in this registry.``, npm 11's ``The requested resource '@acme/ui@^2.0.0' could not be
#: found or you do not have permission to access it.``): the package is the error, another
#: range another version of it.
_NPM_SPEC_RANGE = cued(
    r"'(@?[\w.-]{1,200}(?:/[\w.-]{1,200})?)@[^'\s]{1,100}'"
    rf"(?=\s+is\s+not\s+in\s+(?:this|the\s+npm)\s+registry|{_NPM_11_NOT_FOUND})"
)


#: Bundler names the gem it cannot find with its version constraint (``Could not find gem
#: 'rails (~> 7.0)' in locally installed gems.``): the gem is the error (its name is kept),
#: another constraint on it another version of it.
_GEM_CONSTRAINT = cued(r"(\bfind\s+gem\s+'[\w.-]{1,200})\s+\([^()'\n]{0,100}\)'")


#: pydantic 2 prints the value it was given (``[type=missing, input_value={'debug': True},
#: input_type=dict]``): a run's data, not the error (its type and the field are).
_PYDANTIC_INPUT = cued(r"\binput_value=[^\n]{0,2000}?(?=,\s+input_type=)")


#: libpq 14 reworded its connection errors: ``could not connect to server: Connection
#: refused`` became ``connection to server at "db" (10.0.0.7), port 5432 failed: Connection
#: refused`` (``… on socket "/var/run/postgresql/.s.PGSQL.5432" failed: …``), and a server's
#: ``FATAL: …`` gained that prefix: one error, read as before 14.
_LIBPQ_14 = cued(
    r"\bconnection\s+to\s+server\s+(?:at\s+\"[^\"\n]{0,200}\"(?:\s+\([^()\n]{0,100}\))?,"
    r"\s+port\s+\d+|on\s+socket\s+\"[^\"\n]{0,300}\")\s+failed:\s+(?P<fatal>FATAL:\s+)?"
)


def _libpq_before_14(m: re.Match[str]) -> str:
    return "FATAL: " if m.group("fatal") else "could not connect to server: "


#: Go 1.20 reworded its unused variable (``x declared but not used`` → ``declared and not
#: used: x``) and import (``"os" imported but not used`` → ``… and not used``): one error.
_GO_OLD_UNUSED_VARIABLE = cued(r"^(?P<name>[A-Za-z_]\w*)\s+declared\s+(?:but|and)\s+not\s+used$")
_GO_OLD_UNUSED_IMPORT = cued(r"(\bimported(?:\s+as\s+\w+)?\s+)but(?=\s+not\s+used$)")


#: ``next build`` prints tsc's diagnostic without its code (``Type error: Type 'string' is
#: not assignable to type 'number'.``), tsc with it (``error TS2322: …``). TypeScript words
#: each code's message its own way (its diagnosticMessages.json): the commonest are read
#: with their code, as tsc prints them; another keeps Next's words (no code is guessed).
#: A template's '{0}' is any text; each is matched whole, so "… Did you mean '{2}'?" is not
#: the message without the suggestion, nor TS2740 ("…: {2}, and {3} more.") TS2739.
_TS_MESSAGES: tuple[tuple[int, str], ...] = (
    (2322, "Type '{0}' is not assignable to type '{1}'."),
    (2345, "Argument of type '{0}' is not assignable to parameter of type '{1}'."),
    (2339, "Property '{0}' does not exist on type '{1}'."),
    (2551, "Property '{0}' does not exist on type '{1}'. Did you mean '{2}'?"),
    (2741, "Property '{0}' is missing in type '{1}' but required in type '{2}'."),
    (2740, "Type '{0}' is missing the following properties from type '{1}': {2}, and {3} more."),
    (2739, "Type '{0}' is missing the following properties from type '{1}': {2}"),
    (2559, "Type '{0}' has no properties in common with type '{1}'."),
    (2344, "Type '{0}' does not satisfy the constraint '{1}'."),
    (
        2353,
        "Object literal may only specify known properties, and '{0}' does not exist in type '{1}'.",
    ),
    (2304, "Cannot find name '{0}'."),
    (2552, "Cannot find name '{0}'. Did you mean '{1}'?"),
    (2503, "Cannot find namespace '{0}'."),
    (2307, "Cannot find module '{0}' or its corresponding type declarations."),
    (2305, "Module '{0}' has no exported member '{1}'."),
    (2724, "'{0}' has no exported member named '{1}'. Did you mean '{2}'?"),
    (
        7016,
        "Could not find a declaration file for module '{0}'. '{1}' implicitly has an 'any' type.",
    ),
    (2531, "Object is possibly 'null'."),
    (2532, "Object is possibly 'undefined'."),
    (2533, "Object is possibly 'null' or 'undefined'."),
    (18047, "'{0}' is possibly 'null'."),
    (18048, "'{0}' is possibly 'undefined'."),
    (18049, "'{0}' is possibly 'null' or 'undefined'."),
    (2571, "Object is of type 'unknown'."),
    (18046, "'{0}' is of type 'unknown'."),
    (7005, "Variable '{0}' implicitly has an '{1}' type."),
    (7006, "Parameter '{0}' implicitly has an '{1}' type."),
    (7031, "Binding element '{0}' implicitly has an '{1}' type."),
    (
        7053,
        "Element implicitly has an 'any' type because expression of type '{0}' can't be used to "
        "index type '{1}'.",
    ),
    (2554, "Expected {0} arguments, but got {1}."),
    (2555, "Expected at least {0} arguments, but got {1}."),
    (2769, "No overload matches this call."),
    # (noUnusedLocals' and strict's, on which next build fails)
    (6133, "'{0}' is declared but its value is never read."),
    (6196, "'{0}' is declared but never used."),
    (6192, "All imports in import declaration are unused."),
    (2451, "Cannot redeclare block-scoped variable '{0}'."),
    (2300, "Duplicate identifier '{0}'."),
    (1192, "Module '{0}' has no default export."),
    (2693, "'{0}' only refers to a type, but is being used as a value here."),
    (2564, "Property '{0}' has no initializer and is not definitely assigned in the constructor."),
    (
        2366,
        "Function lacks ending return statement and return type does not include 'undefined'.",
    ),
    (2349, "This expression is not callable."),
    (2786, "'{0}' cannot be used as a JSX component."),
    (2448, "Block-scoped variable '{0}' used before its declaration."),
    (2454, "Variable '{0}' is used before being assigned."),
    (2540, "Cannot assign to '{0}' because it is a read-only property."),
    (2588, "Cannot assign to '{0}' because it is a constant."),
    (
        2367,
        "This comparison appears to be unintentional because the types '{0}' and '{1}' have no "
        "overlap.",
    ),
)
_TS_TEMPLATES = tuple(
    (code, cued("^" + ".+".join(re.escape(part) for part in re.split(r"\{\d\}", message)) + "$"))
    for code, message in _TS_MESSAGES
)
_NEXT_TYPE_ERROR = cued(r"^Type error:\s+(?=\S)")
#: webpack's checkers (fork-ts-checker, ts-loader) print tsc's code first (``TS2322: …``),
#: Deno with its level (``error: TS2322 [ERROR]: …``): tsc's ``error TS2322: …``.
_TS_CODE_FIRST = cued(r"^(?:error:\s+)?TS(?P<code>\d{4,5})(?:\s+\[ERROR\])?:\s+(?=\S)")


def _with_ts_code(text: str) -> str:
    """Next.js's ``Type error: <message>`` as tsc's ``error TS<code>: <message>``, when the
    message is one of :data:`_TS_MESSAGES`; webpack's and Deno's ``TS<code>: <message>`` as
    tsc's."""
    next_build = _NEXT_TYPE_ERROR.match(text)
    if next_build is None:
        return _TS_CODE_FIRST.sub(r"error TS\g<code>: ", text, count=1)
    message = text[next_build.end() :]
    for code, template in _TS_TEMPLATES:
        if template.match(message):
            return f"error TS{code}: {message}"
    return text


#: gcc's and clang's -Werror make a warning an error, and say so in its option: gcc's
#: ``error: unused variable 'x' [-Werror=unused-variable]``, clang's ``[-Werror,-Wunused-
#: variable]``, for ``warning: unused variable 'x' [-Wunused-variable]`` (gcc 14 and clang 16
#: make some an error by default, their option unchanged). The option names the
#: diagnostic: one error, read as the warning.
_WERROR = cued(
    r"^(?:error|warning):(?P<message>\s.*\s)\[-W(?:error(?:=|,-W))?(?P<option>[\w+=-]+)\]$"
)


#: eslint reports a rule at the severity a config gives it (``error  'x' is assigned a value
#: but never used  no-unused-vars``, ``warning  …``; ``next build`` prints ``Error: 'x' is
#: assigned a value but never used.  …``, the message's full stop kept): the rule is the
#: error, read as the warning (as a -Werror one). Its id ends the line, in kebab case
#: (``@typescript-eslint/no-unused-vars``, ``react-hooks/exhaustive-deps``), after Next's
#: message's full stop; a sentence ends in its full stop.
_ESLINT_LEVEL = cued(
    r"^(?i:error|warning)(?::(?=.*\.\s\S+$))?\s+(?![A-Z]{2,}\d)(?P<message>\S.*?)\.?\s"
    r"(?P<rule>(?:@[\w-]+/|[\w-]+/)?[a-z][a-z0-9]*(?:-[a-z0-9]+)+)$"
)


#: Python prints the platform's errno, and macOS (as the BSDs) numbers the errors past 34
#: otherwise than Linux, some in other words: a port in use is ``[Errno 98] Address already
#: in use`` on Linux and ``[Errno 48] …`` on macOS, ETIMEDOUT ``[Errno 110] Connection timed
#: out`` and ``[Errno 60] Operation timed out``. macOS's number and words are read as Linux's
#: (one error); keyed by both, as 35 is EAGAIN on macOS and EDEADLK on Linux, and a number
#: without its words stays as it is.
_DARWIN_ERRNO: dict[tuple[str, str], tuple[str, str]] = {
    ("11", "resource deadlock avoided"): ("35", "Resource deadlock avoided"),
    ("35", "resource temporarily unavailable"): ("11", "Resource temporarily unavailable"),
    ("36", "operation now in progress"): ("115", "Operation now in progress"),
    ("37", "operation already in progress"): ("114", "Operation already in progress"),
    ("38", "socket operation on non-socket"): ("88", "Socket operation on non-socket"),
    ("40", "message too long"): ("90", "Message too long"),
    ("43", "protocol not supported"): ("93", "Protocol not supported"),
    ("45", "operation not supported"): ("95", "Operation not supported"),
    ("47", "address family not supported by protocol family"): (
        "97",
        "Address family not supported by protocol",
    ),
    ("48", "address already in use"): ("98", "Address already in use"),
    ("49", "can't assign requested address"): ("99", "Cannot assign requested address"),
    ("50", "network is down"): ("100", "Network is down"),
    ("51", "network is unreachable"): ("101", "Network is unreachable"),
    ("53", "software caused connection abort"): ("103", "Software caused connection abort"),
    ("54", "connection reset by peer"): ("104", "Connection reset by peer"),
    ("55", "no buffer space available"): ("105", "No buffer space available"),
    ("56", "socket is already connected"): ("106", "Transport endpoint is already connected"),
    ("57", "socket is not connected"): ("107", "Transport endpoint is not connected"),
    ("58", "can't send after socket shutdown"): (
        "108",
        "Cannot send after transport endpoint shutdown",
    ),
    ("60", "operation timed out"): ("110", "Connection timed out"),
    ("61", "connection refused"): ("111", "Connection refused"),
    ("62", "too many levels of symbolic links"): ("40", "Too many levels of symbolic links"),
    ("63", "file name too long"): ("36", "File name too long"),
    ("64", "host is down"): ("112", "Host is down"),
    ("65", "no route to host"): ("113", "No route to host"),
    ("66", "directory not empty"): ("39", "Directory not empty"),
    ("69", "disc quota exceeded"): ("122", "Disk quota exceeded"),
    ("77", "no locks available"): ("37", "No locks available"),
    ("78", "function not implemented"): ("38", "Function not implemented"),
}
#: (Python's ``[Errno 48] Address already in use``, redis-py's ``Error 61 connecting to
#: localhost:6379. Connection refused.``)
_DARWIN_ERRNO_LINE = cued(
    r"(?P<head>\[Errno\s+|\bError\s+)(?P<num>\d{2})"
    r"(?P<mid>\]\s+|\s+connecting\s+to\s+[^\s.]+(?:\.[^\s.]+)*\.\s+)(?P<words>"
    + "|".join(sorted((re.escape(w) for _, w in _DARWIN_ERRNO), key=len, reverse=True))
    + r"|connect\s+call\s+failed)(?!\w)",
    re.IGNORECASE,
)
#: asyncio says any errno of a connection it could not make as ``[Errno N] Connect call
#: failed (…)``: macOS's numbers a connect gives (refused, timed out, unreachable, host
#: down, address in use or not available, reset) are read as Linux's by the number alone;
#: Linux gives none of these numbers for a connect.
_DARWIN_CONNECT_ERRNOS = ("48", "49", "50", "51", "54", "60", "61", "64", "65")
_DARWIN_ERRNO_NUMBER = {
    darwin: linux
    for (darwin, _), (linux, _) in _DARWIN_ERRNO.items()
    if darwin in _DARWIN_CONNECT_ERRNOS
}


def _errno_as_on_linux(m: re.Match[str]) -> str:
    words = m.group("words")
    if words.lower().split() == ["connect", "call", "failed"]:
        number = _DARWIN_ERRNO_NUMBER.get(m.group("num"))
        if number is None:
            return m.group(0)
        return f"{m.group('head')}{number}{m.group('mid')}{words}"
    linux = _DARWIN_ERRNO.get((m.group("num"), words.lower()))
    if linux is None:
        return m.group(0)
    return f"{m.group('head')}{linux[0]}{m.group('mid')}{linux[1]}"


#: Kotlin 2's compiler quotes the name it cannot resolve (``Unresolved reference 'foo'.``)
#: where Kotlin 1's did not (``Unresolved reference: foo``): one error, and the name stays
#: as Kotlin 1's kept it (another name is another error).
_KOTLIN_NEW_UNRESOLVED = cued(r"\bUnresolved\s+reference\s+'(?P<name>[\w.$]{1,200})'\.?$")


#: pytest reports a failed assert as ``assert 401 == 200`` (its short summary, its ``E``
#: line) and names its class under the report (``AssertionError``, joined to it in the
#: report's signature): one error, said with or without its class.
_PYTEST_ASSERT_CLASS = cued(r"^(?:builtins\.)?AssertionError:\s+(?=assert\s)")


#: Python 3.10+'s suggestion after a NameError, AttributeError or ImportError ("Did you
#: mean: 'x'?", 3.12's "Did you forget to import 'x'?"), which older Pythons do not print.
_SUGGESTION = cued(r"(?<=\S)\.?\s+Did\s+you\s+(?:mean|forget\s+to\s+import)\b[^?\n]{0,300}\?$")


#: The package of the ES module Node could not ``require()`` (``require() of ES Module
#: /repo/node_modules/.pnpm/chalk@5.3.0/node_modules/chalk/source/index.js from …``): the
#: package is the error (its fix pins or imports that one), the path to it is the machine's.
_ESM_REQUIRED_PACKAGE = cued(
    r"(\brequire\(\)\s+of\s+ES\s+Module\s+)\S{0,500}node_modules/((?:@[\w.-]{1,100}/)?[\w.-]{1,100})"
    r"/(?:(?!node_modules/)[^\s'\"])*(?=\s|$)",
    re.IGNORECASE,
)
#: The registry URL npm and pnpm could not find a package at (npm's ``404 Not Found - GET
#: https://registry.npmjs.org/yaml - Not found``, pnpm's ``ERR_PNPM_FETCH_404  GET
#: https://registry.npmjs.org/yaml: Not Found - 404``; a Verdaccio registry's or a mirror's
#: ``… - no such package available``): the package is the error, which registry is the
#: machine's (the URL was masked whole: every package's 404 was one error, and express' fix
#: came first for yaml's, qa-s70b F6).
_NPM_404_URL = cued(
    r"(\b(?:404\s+Not\s+Found\s+-|ERR_PNPM_FETCH_404)\s+GET\s+)https?://[^\s/'\"`]{1,300}"
    r"(/[^\s'\"`?#]{0,1000})"
    r"(?=\s+-\s+(?:Not\s+found|no\s+such\s+package\s+available)\b|:\s+Not\s+Found\s+-\s+404\b)",
    re.IGNORECASE,
)
_NPM_PACKAGE = cued(r"(?:@[\w.-]{1,214}/)?[\w.-]{1,214}")
#: yarn classic's 404 of the registry's URL (``error An unexpected error occurred:
#: "https://registry.yarnpkg.com/yaml-foo: Not found".``, a scoped package's
#: ``…/@acme%2fui: Not found``, a tarball's ``…/yaml/-/yaml-2.4.1.tgz: Request failed \"404
#: Not Found\"``): the URL was masked whole, so every package's 404 was every other's exact
#: match. Read as the package in quotes, as npm's (:func:`_yarn_404_package`).
_YARN_404_URL = cued(
    r"(\bAn\s+unexpected\s+error\s+occurred:\s+)\"https?://[^\s/'\"`]{1,300}"
    r"(/[^\s'\"`?#:]{0,1000}):\s+(?:(Not\s+found)|Request\s+failed\s+\\?\"404\s+Not\s+Found\\?\")\"",
    re.IGNORECASE,
)


def _npm_package_in(path: str) -> str | None:
    """The package a registry URL's ``path`` names: a scoped one's ``/@acme%2fui`` is
    ``@acme/ui``, a tarball's ``/yaml/-/yaml-2.4.1.tgz`` its package's ``yaml``; None for a
    path that names no package."""
    path = path.replace("%2f", "/").replace("%2F", "/").replace("%40", "@")
    path = path.split("/-/", 1)[0]
    parts = [part for part in path.split("/") if part]
    scoped = len(parts) >= 2 and parts[-2].startswith("@")
    name = "/".join(parts[-2:]) if scoped else "".join(parts[-1:])
    return name if _NPM_PACKAGE.fullmatch(name) is not None else None


def _npm_404_package(m: re.Match[str]) -> str:
    """npm's 404 (:data:`_NPM_404_URL`) with the package its URL names in quotes in place of
    the URL (:func:`_npm_package_in`). A URL that names no package is left as it is (masked
    as any URL)."""
    name = _npm_package_in(m.group(2))
    return m.group(0) if name is None else f"{m.group(1)}'{name}'"


def _yarn_404_package(m: re.Match[str]) -> str:
    """yarn's 404 (:data:`_YARN_404_URL`) as ``An unexpected error occurred: 'yaml-foo': Not
    found`` (a tarball's: ``…: 'yaml': Request failed 404 Not Found``), without the quotes
    around the URL and its message (which would mask the package with them)."""
    name = _npm_package_in(m.group(2))
    if name is None:
        return m.group(0)
    said = "Not found" if m.group(3) else "Request failed 404 Not Found"
    return f"{m.group(1)}'{name}': {said}"


#: npm 5's and 6's 404 of a package (``npm ERR! 404 Not Found: yaml-foo@latest``, ``…:
#: error-inject@^1.0.0``): the package is the error (kept, in quotes, :data:`_KEEP_MODULE`),
#: the range it was asked for another version of it. (It was left bare, the range's numbers
#: masked: read as no missing name, another package's 404 fix came first for it, 0.92.)
_NPM_NOT_FOUND_SPEC = cued(
    r"(\b404\s+Not\s+Found:\s+)(@?[\w.-]{1,214}(?:/[\w.-]{1,214})?)@[^\s'\"`@]{1,100}(?=\s|$)",
    re.IGNORECASE,
)


#: The JDBC URL Java has no driver for: its subprotocol names the driver (the fix adds that
#: one), its host and database are the machine's.
_JDBC_URL = cued(r"(\bNo\s+suitable\s+driver\s+found\s+for\s+)(jdbc:[\w-]{1,50}):\S*", re.I)
#: The file git could not merge, by its name: a lockfile's conflict is not a source file's
#: (its fix regenerates it), and its folders are the checkout's.
_MERGE_CONFLICT_FILE = cued(r"(\bMerge\s+conflict\s+in\s+)(?:\S*/)?([^\s/]{1,200})$")
#: A local module Deno cannot find (``Module not found "file:///home/dev/shop/lib/stripe.ts"``),
#: by its file's name: its folders are the machine's.
_DENO_LOCAL_MODULE = cued(r'(\bModule\s+not\s+found\s+)"file://\S*/([^/"\s]{1,200})"')
#: The hash Flutter (Dart's describeIdentity) puts after an object's class, another each run
#: (``RenderRepaintBoundary#a1b2c``).
_OBJECT_IDENTITY = cued(r"(?<=[A-Za-z])#[0-9a-f]{5}\b")
#: An image on Docker Hub, named with one of its registry's hosts or its ``library/`` (a note
#: may say ``docker.io/myorg/api`` where docker says ``myorg/api``).
_DOCKER_HUB_IMAGE = cued(
    r"(\bpull\s+access\s+denied\s+for\s+)(?:(?:index\.|registry-1\.)?docker\.io/)?(?:library/)?"
)
#: The verb Kubernetes refused a resource for: one missing Role refuses an informer "list"
#: and "watch" (the resource refused is kept).
_KUBERNETES_VERB = cued(r"(\bcannot\s+)\w{1,50}(\s+resource\s+\")")
#: Resources an older cluster serves from the ``extensions`` API group, a newer one from
#: their own: one resource (``deployments`` of ``extensions`` is ``apps``').
_KUBERNETES_MOVED_GROUP = cued(
    r"(\bresource\s+\"(?P<resource>deployments|daemonsets|replicasets|ingresses|networkpolicies"
    r"|podsecuritypolicies)(?:/[\w-]{1,50})?\"\s+in\s+API\s+group\s+\")extensions(?=\")"
)
_KUBERNETES_GROUP_NOW = {
    "deployments": "apps",
    "daemonsets": "apps",
    "replicasets": "apps",
    "ingresses": "networking.k8s.io",
    "networkpolicies": "networking.k8s.io",
    "podsecuritypolicies": "policy",
}
#: Names a newer Go says otherwise: Go 1.16 made ``os.PathError``, ``os.FileMode``,
#: ``os.FileInfo`` and ``os.DirEntry`` aliases of io/fs's (its runtime says ``*fs.PathError``
#: where Go 1.15 said ``*os.PathError``).
_GO_FS_ALIAS = cued(r"\bos\.(?=(?:PathError|FileMode|FileInfo|DirEntry)\b)")
#: A crate of Rust's own library rustc cannot find (``can't find crate for `core```, ``std``,
#: ``alloc``…): the target is not installed (``rustup target add``), whichever of them it
#: names, so each is read as ``std``; another crate (``serde``) is its own missing name.
_RUST_SYSROOT_CRATE = cued(
    r"(\bcan'?t\s+find\s+crate\s+for\s+)`(?:std|core|alloc|compiler_builtins|proc_macro|test"
    r"|panic_unwind|panic_abort)`"
)
#: Rust before 1.55 said an errno no kind names ``Other``, Rust since ``Uncategorized``.
_RUST_OLD_CATCH_ALL = cued(r"(\bOs\s+\{\s+code:\s+-?\d{1,5},\s+kind:\s+)Other(?=,)")
#: The package of the class a Scala match did not cover: moved, shaded, or left out of a note.
_SCALA_CLASS_PACKAGE = cued(r"(\(of\s+class\s+)(?:[a-z_]\w{0,100}\.){1,20}(?=\w{1,200}\$)")
#: A thread the JVM could not start, in JDK 8's words ("unable to create new native thread")
#: and JDK 11's (without "new", with its guess at the cause after a colon): one error.
_JDK_NATIVE_THREAD = cued(
    r"\bunable\s+to\s+create\s+(?:new\s+)?native\s+thread(?::\s+possibly\s+out\s+of\s+memory\s+or"
    r"\s+process/resource\s+limits\s+reached)?",
    re.IGNORECASE,
)
#: The quotes a kept name is said in, other than ``'``: gcc's, make's and GHC's ‘so’ (a UTF-8
#: locale), GNU's `so' (C), and rustc's `serde` (both ends: its name read as ``'serde`` kept
#: no value, so another crate's ``unresolved import`` entry was not held as another name's,
#: qa-s69a F1).
_UNICODE_QUOTES = cued(r"^[‘`]|[’`]$")


#: An exit status a runner quotes (Azure Pipelines' "Bash exited with code '137'."): a status
#: all the same, not a quoted name.
_QUOTED_EXIT_STATUS = cued(r"(\bexit(?:ed)?\s+with\s+(?:exit\s+)?(?:code|status)\s+)'(-?\d{1,5})'")
#: The first port a kernel hands out to a socket bound to port 0 (Linux's
#: ``ip_local_port_range`` starts there; macOS and Windows start at 49152): a test server's
#: port from there up is a new one every run, not the service it is.
FIRST_EPHEMERAL_PORT = 32768
#: The services a project's code connects to, by the port each listens on unless told
#: otherwise. Their port is kept as the service's name: another service's is another
#: error (redis' 6379 is not PostgreSQL's 5432), but a port of no known service is no other
#: code of theirs (a second PostgreSQL on 5433 may be the one whose fix is stored for 5432:
#: that entry is found by its words); two ports of no known service are two errors (MinIO's
#: 9000 is not LocalStack's 4566).
SERVICE_PORTS = {
    1433: "sqlserver",
    1521: "oracle",
    2181: "zookeeper",
    2379: "etcd",
    3306: "mysql",
    4222: "nats",
    5432: "postgresql",
    5672: "rabbitmq",
    6333: "qdrant",
    6379: "redis",
    7687: "neo4j",
    8086: "influxdb",
    8200: "vault",
    8500: "consul",
    9042: "cassandra",
    9092: "kafka",
    9200: "elasticsearch",
    11211: "memcached",
    26257: "cockroachdb",
    27017: "mongodb",
}
_ADDRESS = r"(?:\[[\w:.%]{2,60}\]|[\w:.%-]{1,200}?)"
#: A connection a client library could not make (refused, timed out, unreachable), by the
#: address and port it was made to: the port (:data:`SERVICE_PORTS`) says which service
#: did not answer (a Node app's ``connect ECONNREFUSED 127.0.0.1:6379`` is redis down,
#: ``…:5432`` PostgreSQL: each has its own fix), the address does not (a compose service in
#: CI, localhost on a laptop). Node's ``connect E… address:port``, Go's ``dial tcp
#: address:port:``, asyncio's ``Connect call failed ('address', port)`` (IPv6's with its flow
#: and scope), requests' ``HTTPConnectionPool(host='address', port=N)`` and urllib3 2's
#: ``HTTPConnection(host=…, port=N)`` (Elasticsearch's 9200 refused was a Django API's 8000,
#: exact). Not a tool's that says which service it is
#: (ssh's, curl's, redis-py's, psycopg's): one failure whichever port it was given.
_CONNECTION_PORT = (
    cued(
        rf"(?P<before>\bconnect\s+E[A-Z]{{2,20}}\s+){_ADDRESS}(?P<between>:)(?P<port>\d{{1,5}})"
        r"(?![\w:%]|\.\d)"
    ),
    cued(
        rf"(?P<before>\bdial\s+(?:tcp|udp)[46]?\s+){_ADDRESS}(?P<between>:)(?P<port>\d{{1,5}})(?=:)"
    ),
    cued(
        r"(?P<before>\bConnect\s+call\s+failed\s+\()'[^'\n]{1,200}'(?P<between>,\s*)"
        r"(?P<port>\d{1,5})(?:,\s*\d{1,10},\s*\d{1,10})?(?=\))",
        re.IGNORECASE,
    ),
    cued(
        r"(?P<before>\bHTTPS?Connection(?:Pool)?\(host=)'[^'\n]{1,200}'(?P<between>,\s*port=)"
        r"(?P<port>\d{1,5})(?=\))"
    ),
)
#: A port a server could not listen on because another process holds it, by the address
#: and port: Docker's ``Bind for 0.0.0.0:5432 failed: port is already allocated``, Go's
#: ``listen tcp 0.0.0.0:5432: bind: address already in use`` (Docker's userland proxy, Docker
#: Desktop, a Go server), Node's ``listen EADDRINUSE: address already in use :::3000`` and
#: asyncio's ``error while attempting to bind on address ('0.0.0.0', 8000)``. The port says
#: which service's port is taken, as a connection's does (qa-s69a F6: the fix stored for
#: redis' 6379 came second at 0.67 for PostgreSQL's 5432).
_BIND_PORT = (
    cued(rf"(?P<before>\bBind\s+for\s+){_ADDRESS}(?P<between>:)(?P<port>\d{{1,5}})(?=\s+failed\b)"),
    cued(
        rf"(?P<before>\blisten\s+(?:tcp|udp)[46]?\s+){_ADDRESS}?(?P<between>:)(?P<port>\d{{1,5}})"
        r"(?=:\s*bind:\s*address\s+already\s+in\s+use)"
    ),
    # Node's "listen EADDRINUSE: address already in use :::3000" (or 127.0.0.1:3000), and
    # asyncio's (uvicorn's) "error while attempting to bind on address ('0.0.0.0', 8000)":
    # the port was masked, so every port's fix was the exact match (qa-s70b F4)
    cued(
        r"(?P<before>\blisten\s+EADDRINUSE:?\s+(?:address\s+already\s+in\s+use\s+)?)"
        rf"{_ADDRESS}?(?P<between>:)(?P<port>\d{{1,5}})(?![\w:%]|\.\d)"
    ),
    cued(
        r"(?P<before>\bbind\s+on\s+address\s+\()'[^'\n]{1,200}'(?P<between>,\s*)"
        r"(?P<port>\d{1,5})(?:,\s*\d{1,10},\s*\d{1,10})?(?=\))"
    ),
)
#: A command a shell could not find, as each shell words it: bash's ``bash: fd: command not
#: found`` (``bash: line 1: fd: …`` in a script), dash's ``/bin/sh: 1: fd: not found``, zsh's
#: ``zsh: command not found: fd``, fish's ``fish: Unknown command: fd``, a script's
#: ``./deploy.sh: line 12: fd: command not found``, and ``fd: command not found`` as a person
#: types it: one error, read as
#: ``command not found: fd`` (its name kept, :data:`_KEEP_MODULE`).
_SHELL_NOT_FOUND = (
    cued(
        r"(?:(?<=\s)|^)(?:[\w.-]*/)*(?:ba|da|k|z)?sh:\s+(?:line\s+\d+:\s+)?(?:\d+:\s+)?"
        r"(?P<name>[\w.+@-]{1,200}):\s+(?:command\s+)?not\s+found\b"
    ),
    cued(
        r"(?:(?<=\s)|^)(?:zsh:\s+command\s+not\s+found|fish:\s+Unknown\s+command):?\s+"
        r"(?P<name>\S{1,200})"
    ),
    # the command alone before it, as a person types it ("kubectl: command not found")
    cued(r"^(?P<name>[\w.+@-]{1,200}):\s+command\s+not\s+found\b"),
    # a script bash runs names itself, and the line
    cued(
        r"(?:(?<=\s)|^)[^\s:]{1,300}:\s+line\s+\d+:\s+(?P<name>[\w.+@-]{1,200}):\s+command\s+not"
        r"\s+found\b"
    ),
)
#: What Docker says before a port it could not publish: the CLI's ``docker:`` before the
#: daemon's answer (compose prints the answer alone), and the endpoint, named after the
#: compose project and service, with its container's id (older Dockers print no id).
_DOCKER_DAEMON_SAID = cued(r"^docker:\s+(?=error\s+response\s+from\s+daemon\b)", re.IGNORECASE)
_DOCKER_ENDPOINT = cued(
    r"(\bexternal\s+connectivity)\s+on\s+endpoint\s+[\w.-]{1,200}(?:\s+\([0-9a-f]{1,64}\))?(?=:)"
)


def _keep_token(index: int) -> str:
    """A placeholder without digits (so the number mask cannot touch it)."""
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(ord("a") + rem) + letters
    return f"\x00{letters}\x00"


#: The project vitest names a failed test's file under (``FAIL |unit| src/auth.test.js >
#: login returns 200: …``, vitest.config's ``test.projects``' name): left out, as vitest's
#: JSON report, which names no project, gives the same failure.
_VITEST_PROJECT = cued(r"^(FAIL\s+)\|[^|\n]{1,100}\|\s+(?=\S+\s+>\s)")

#: The test file's line go test prints before what a test logged (``--- FAIL:
#: TestSumsThePrices (0.00s): shop_test.go:13: Total([2 3]) = 6; want 5``, a note written as go
#: prints it): left out, as the signature of the run leaves it (qa77 F5: that note was no
#: exact match of the run, and came after a later test's exact fix).
_GO_TEST_LOCATION = cued(r"^(---\s+FAIL:\s+\S+\s+\([^)\n]{0,40}\):\s+)[\w.-]+_test\.go:\d+:\s+")


def error_fingerprint(signature: str) -> str:
    """A normalised form of a signature that is the same across files, runs and names.

    Masks URLs, file paths (POSIX, Windows, bare ``name.ext``; with ``:line:col``), hex ids and
    memory addresses, UUIDs, ids a run makes up (buildkit refs, Kubernetes pod names), quoted
    identifiers and numbers; keeps error classes and codes (``TypeError``, ``E0382``,
    ``ERESOLVE``, ``TS2322``), Python's ``'NoneType'`` (a value that was None) and a quoted
    token (``expected ';' before '}'``), the numbers that carry meaning (exit codes, signals,
    errno — also inside a quoted cause —, HTTP status) and the name of a missing module,
    package, crate or header (``No module named 'yaml'``), and of whatever else a tool names as
    the error (a Spring bean's type, a make target, a gcloud permission, the types a type
    checker says do not fit: a wanted type that is a part of the given one reads as ``<t>``,
    ``"str | None"; expected "str"`` as any type made optional), in quotes where the tool prints
    it bare (Kotlin's lateinit property, the JVM's kind of memory, Erlang's and Elixir's
    undefined function, PHP's TypeError's function and types, AWS's denied action, Go's
    undefined name and the others ``_KEEP_MODULE`` lists). The ``(exit code N)`` a signature
    takes from a log's closing line is left out (a CI run and a local run of one error are one
    error), npm 9's ``npm ERR!`` is read as npm 10's ``npm error``, and Node 14's ``Cannot read
    property 'x' of undefined`` as Node 16's ``Cannot read properties of undefined (reading
    'x')``, Ruby 3.2's ``for nil:NilClass`` / ``for #<User:0x…>`` as 3.3's ``for nil`` / ``for
    an instance of User``, Go 1.19's ``x declared but not used`` as 1.20's ``declared and not
    used: x`` (``imported but not used`` as ``imported and not used``), Kotlin 2's ``Unresolved
    reference 'foo'.`` as Kotlin 1's ``Unresolved reference: foo``, pytest's ``AssertionError:
    assert …`` as its summary's ``assert …``, macOS's errno as Linux's (``[Errno 48] Address
    already in use`` as ``[Errno 98] …``), Next.js's ``Type error: <message>`` as tsc's ``error
    TS<code>: <message>`` (for the commonest messages, whose code TypeScript's wording gives),
    and a compiler's warning made an error (``error: … [-Werror=unused-variable]``) as the
    warning (``warning: … [-Wunused-variable]``). What a runtime says before an exception's
    class (``Uncaught``, ``Exception in thread "main"``, ``Caused by:``) and after it (.NET's
    HResult, ``(0x80131904)``, or native error code, ``(111)``), and the suggestion Python
    3.10+ appends (``Did you mean: 'x'?``) are left out, and a credential in the signature
    reads as its redaction marker (``[redacted:github_token]``), as the stored entry holds
    it. Whitespace collapsed, lowercased.
    """
    return _remembered_fingerprint(signature or "")


def _fingerprint(signature: str) -> str:
    """:func:`error_fingerprint`, worked out."""
    text = one_line(CONTROL.sub("", ANSI.sub("", signature)))
    if text.upper().startswith(ERROR_FIX_PREFIX):
        entry = parse_error_fix(text)
        if entry is not None:
            text = entry.signature
    # a signature kenning extracts is at most 300 characters; a longer one typed into an
    # ERROR-FIX entry is known by its beginning (the path rules take time quadratic in a
    # run of path characters: 39 s for 64 KiB of dots)
    text = text[:FINGERPRINT_MAX_CHARS]
    # the line as a tool printed it (its location, a log's timestamp and level, pytest's
    # "E" or "FAILED … -") is cleaned as a raw error's signature is: an entry that stores
    # it matches the error's query
    text = extract_error_signature(text) or text
    text = without_exit_code_suffix(text)
    # a stored entry is redacted; the error recalled with carries the credential itself (a
    # new one each run): both read as the redacted form, and no credential is in a fingerprint
    from .redaction import redact_secrets  # (RE2 and the rules load on first use)

    text = redact_secrets(text)[0]
    text = _with_ts_code(text)  # (before a suggestion, "Did you mean 'x'?", is cut off)
    text = _NPM_ERR.sub("npm error", text, count=1)
    text = _JDK_NATIVE_THREAD.sub("unable to create native thread", text, count=1)
    text = _DOCKER_HUB_IMAGE.sub(r"\1", text, count=1)
    text = _DOCKER_DAEMON_SAID.sub("", text, count=1)
    for pattern in _SHELL_NOT_FOUND:
        text = pattern.sub(r"command not found: \g<name>", text, count=1)
    text = _DOCKER_ENDPOINT.sub(r"\1", text, count=1)
    text = _KUBERNETES_VERB.sub(r"\1<verb>\2", text, count=1)
    text = _KUBERNETES_MOVED_GROUP.sub(
        lambda m: m.group(1) + _KUBERNETES_GROUP_NOW[m.group("resource")], text, count=1
    )
    text = _GO_FS_ALIAS.sub("fs.", text)
    text = _SCALA_CLASS_PACKAGE.sub(r"\1", text, count=1)
    text = _RUST_OLD_CATCH_ALL.sub(r"\1Uncategorized", text, count=1)
    text = _RUST_SYSROOT_CRATE.sub(r"\1`std`", text, count=1)
    text = _RUST_OLD_COULD_NOT_FIND.sub(_rust_could_not_find_now, text, count=1)
    text = _RUST_PATH_SAID.sub(_rust_paths_quoted, text)
    text = _NODE_OLD_PROPERTY.sub(_node_property_now, text, count=1)
    text = _RUBY_OLD_RECEIVER.sub(_ruby_receiver_now, text, count=1)
    text = _RUBY_OLD_METHOD_QUOTES.sub(r"\1'\2'", text, count=1)
    text = _RUST_THREAD.sub(r"thread \g<name>", text, count=1)
    text = _ESM_REQUIRED_PACKAGE.sub(r"\1'\2'", text, count=1)
    text = _NPM_404_URL.sub(_npm_404_package, text, count=1)
    text = _YARN_404_URL.sub(_yarn_404_package, text, count=1)
    text = _NPM_NOT_FOUND_SPEC.sub(r"\1'\2'", text, count=1)
    text = _JDBC_URL.sub(r"\1'\2'", text, count=1)
    text = _MERGE_CONFLICT_FILE.sub(r"\1'\2'", text, count=1)
    text = _DENO_LOCAL_MODULE.sub(r'\1"\2"', text, count=1)
    text = _OBJECT_IDENTITY.sub("#<id>", text)
    text = _EXCEPTION_INTRO.sub("", text, count=1)
    text = _DOTNET_HRESULT.sub(r"\1", text, count=1)
    text = _MSBUILD_PROJECT.sub("", text, count=1)
    text = _VITEST_PROJECT.sub(r"\1", text, count=1)
    text = _GO_TEST_LOCATION.sub(r"\1", text, count=1)
    text = _GIT_REJECTED_REF.sub(r"\1 <ref> -> <ref>", text, count=1)
    text = _GEM_CONSTRAINT.sub(r"\1'", text, count=1)
    text = _NPM_SPEC_RANGE.sub(r"'\1'", text, count=1)
    text = _PYDANTIC_INPUT.sub("input_value=<q>", text)
    text = _LIBPQ_14.sub(_libpq_before_14, text, count=1)
    text = _SUGGESTION.sub("", text, count=1)
    text = _PYTEST_ASSERT_CLASS.sub("", text, count=1)
    text = _BUILDKIT_FAILED_TO_SOLVE.sub(r"\1", text, count=1)
    text = _GO_OLD_UNUSED_VARIABLE.sub(r"declared and not used: \g<name>", text, count=1)
    text = _GO_OLD_UNUSED_IMPORT.sub(r"\1and", text, count=1)
    text = _KOTLIN_NEW_UNRESOLVED.sub(r"Unresolved reference: \g<name>", text, count=1)
    text = _DARWIN_ERRNO_LINE.sub(_errno_as_on_linux, text)
    text = _WERROR.sub(r"warning:\g<message>[-W\g<option>]", text, count=1)
    text = _ESLINT_LEVEL.sub(r"warning \g<message> \g<rule>", text, count=1)
    text = _LEVEL_WORD.sub("", text, count=1)  # (after the -Werror and eslint levels' reading)
    kept: list[str] = []

    def keep(m: re.Match[str]) -> str:
        bare = m.groupdict().get("bare")
        kept.append(m.group("num") if bare is None else f"'{_bare_name(bare)}'")
        return m.group("keep") + _keep_token(len(kept) - 1)

    def service_port(m: re.Match[str]) -> str:
        port = m.group("port")
        if int(port) >= FIRST_EPHEMERAL_PORT:  # (masked below as any number)
            return f"{m.group('before')}<host>{m.group('between')}{port}"
        service = SERVICE_PORTS.get(int(port))
        # a service by its name, another port as a port: neither is the other's shape with
        # another value in it (which would make them another error's)
        kept.append(port if service is None else f"'{service}'")
        said = _keep_token(len(kept) - 1)
        if service is None:
            said = f"port {said}"
        return f"{m.group('before')}<host>{m.group('between')}{said}"

    text = _LOG_MESSAGE.sub(lambda m: f"{m.group('key')}{m.group('value')}", text)
    text = _QUOTED_EXIT_STATUS.sub(r"\1\2", text, count=1)
    # each connection (or bind) a line tells: its second, redis, was any address's, and the
    # first's, PostgreSQL's, fix its exact match (qa-s60c M1)
    for pattern in (*_CONNECTION_PORT, *_BIND_PORT):
        text = pattern.sub(service_port, text)
    for pattern in _KEEP_MODULE:
        text = pattern.sub(keep, text)
    text = _KEEP_NUMBER.sub(keep, text)
    literal = () if _ASSERT.search(text) else _LITERAL_RULES
    for pattern, repl in (*_FP_RULES, *literal):
        text = pattern.sub(repl, text)
    for i, num in enumerate(kept):
        # in one kind of quotes: gcc, make and GHC quote ‘so’ in a UTF-8 locale, 'so' in C
        text = text.replace(_keep_token(i), _typing_spelled_now(_UNICODE_QUOTES.sub("'", num)))
    # adjacent masks of the same kind are one mask ("<n>.<n>" already handled by the regex)
    text = re.sub(r"(<(?:n|q|path|hex)>)(?:[\s,]*\1)+", r"\1", text)
    return _with_shared_type_abstracted(_FULL_STOP.sub("", one_line(text)).lower())


#: A recall asks for its error's fingerprint several times (its queries, the lexical side's
#: query fingerprints, each candidate's check against them: 11 calls of 3 texts for a pasted
#: unittest run), ~0.14 ms each, and a write asks again for a signature it stored before: a
#: fingerprint is a function of its text alone, remembered for the last texts asked.
_remembered_fingerprint = remembered(_fingerprint)


def _rust_could_not_find_now(m: re.Match[str]) -> str:
    """rustc's E0433 before 1.95 (:data:`_RUST_OLD_COULD_NOT_FIND`) as 1.95 says it."""
    return f"cannot find {m.group(1)} in {m.group(2) or '`crate`'}"


def _rust_paths_quoted(m: re.Match[str]) -> str:
    """The paths of rustc's words for a wrong path (:data:`_RUST_PATH_SAID`), each in ``'``."""
    return "".join(
        ", ".join(f"'{q.group(0)[1:-1]}'" for q in _RUST_QUOTED_ONE.finditer(part))
        if i % 2 == 0  # (the groups that are paths: 2, 4 and 6; a list joined by ", ")
        else part
        for i, part in enumerate(m.groups(), start=1)
        if part is not None
    )


def _bare_name(name: str) -> str:
    """A name a tool printed bare, as one quoted value: without quotes of its own (Erlang's
    ``'Elixir.Shop.Server'``), one backslash between PHP's namespaces and none before them
    (a note may say ``\\App\\Item`` as the source does, or ``App\\\\Item`` as a JSON log
    does), without the full stop a note's sentence ends in, and Elixir's ``:crypto.hash/3`` as
    Erlang's ``crypto:hash/3``."""
    name = re.sub(r"\\{2,}", r"\\", name.replace("'", "")).lstrip("\\").rstrip(".")
    if "|" in name or name.startswith("?"):
        # a PHP type as declared or as printed: "?App\\Item" is "App\\Item|null", and a
        # union's members in any order
        members = set()
        for member in name.split("|"):
            member = member.lstrip("\\")
            if member.startswith("?"):
                members.add("null")
                member = member[1:].lstrip("\\")
            members.add(member)
        name = "|".join(sorted(members, key=str.lower))
    if name.startswith(":") and "." in name:
        module, _, function = name[1:].partition(".")
        name = f"{module}:{function}"
    return " ".join(name.split())


def _typing_spelled_now(kept: str) -> str:
    """A type as Python 3.10's typing spells it: mypy's ``"Optional[str]"`` (an older
    ``--python-version``) is ``"str | None"``, ``"Union[int, str]"`` is ``"int | str"``."""
    if "Optional[" not in kept and "Union[" not in kept:
        return kept
    kept = _OPTIONAL.sub(r"\1 | None", kept)
    return _UNION.sub(lambda m: " | ".join(p.strip() for p in m.group(1).split(",")), kept)


_OPTIONAL = cued(r"\bOptional\[([^\[\]]{1,200})\]")
_UNION = cued(r"\bUnion\[([^\[\]]{1,200})\]")
#: The two types of a type checker's message, the one given and the one wanted (lower-cased,
#: as the fingerprint is by then).
_TYPE_PAIRS = (
    cued(r'(incompatible type ")([^"]{1,200})("; expected ")([^"]{1,200})(")'),
    cued(r'(\(got ")([^"]{1,200})(", expected ")([^"]{1,200})(")'),
    cued(r'(\(expression has type ")([^"]{1,200})(", variable has type ")([^"]{1,200})(")'),
    cued(
        r'(of type ")([^"]{1,200})(" cannot be assigned to parameter \S+ of type ")([^"]{1,200})(")'
    ),
    cued(
        r'(type ")([^"]{1,200})(" (?:is not assignable to|cannot be assigned to|is incompatible '
        r'with) (?:declared |return )?type ")([^"]{1,200})(")'
    ),
    cued(r"(type ')([^']{1,200})(' is not assignable to (?:parameter of )?type ')([^']{1,200})(')"),
)
_TYPE_NAME = cued(r"^[\w.$]{1,100}(?:\[\])*$")


def _with_shared_type_abstracted(text: str) -> str:
    """A type checker's message whose wanted type is a part of the given one (``"str | None";
    expected "str"``, ``'number | undefined'`` to ``'number'``, ``'Promise<User>'`` to
    ``'User'``) with that type as ``<t>``: one error whichever type it is (its fix narrows,
    defaults or awaits), where ``'number'`` to ``'string'`` stays another."""
    if "type" not in text:
        return text
    for pattern in _TYPE_PAIRS:

        def shared(m: re.Match[str]) -> str:
            given, wanted = m.group(2), m.group(4)
            if not _TYPE_NAME.match(wanted):
                return m.group(0)
            word = re.compile(rf"(?<![\w.$]){re.escape(wanted)}(?![\w.$])")
            if word.search(given) is None:
                return m.group(0)
            return f"{m.group(1)}{word.sub('<t>', given)}{m.group(3)}<t>{m.group(5)}"

        text = pattern.sub(shared, text)
    return text


_MASK = cued(r"<(?:uuid|url|time|hex|path|id|pod|q|n|host|ref)>")
#: A word of three letters or more, or an error code (letters and digits: e0382, ts2322).
_IDENTITY = cued(r"[^\W\d_]{3,}|\b(?=\w*\d)(?=\w*[^\W\d_])\w{3,}\b")


#: What a fingerprint says is missing, by the name it keeps (:data:`_MISSING_WORDS`'s, a
#: command a shell cannot find), and the names it keeps bare or a tool words otherwise, each
#: with the kind of thing it is: a Python module (or pip's distribution), a Node module or
#: package (or npm's), a Rust import or crate, a gem, a Go package, a command. One name of two
#: kinds is two things (Python's 'express' is not Node's, Node's 'rg' not the command).
_MISSING_OF_KIND = (
    # (a path rustc could not resolve, read before a crate's name: "unresolved import
    # 'crate::config::settings'", the first of a list; "cannot find 'nope' in 'fs'" and
    # "cannot find value 'x' in module 'crate::config'" as the path "fs::nope",
    # :func:`missing_names`; a crate's name alone is "rust")
    ("rust path", r"\bunresolved imports? '([^'\s]{1,200}::[^'\s]{1,3000})'"),
    (
        "rust path",
        r"\bcannot find (?:[a-z]+[\s,]+){0,4}?'([^'\s]{1,200}' in (?:[a-z]+ )?'[^'\s]{1,3000})'",
    ),
    # (in single quotes, or double ones as esbuild's "could not resolve "lodash"")
    *(
        (kind, rf"\b(?:{words})\s+['\"]([^'\"\s]{{1,200}})['\"]")
        for kind, words in _MISSING_WORDS_OF_KIND
    ),
    ("command", r"\bcommand\s+not\s+found:\s+'([^'\s]{1,200})'"),
    # (Go's package path, which the fingerprint keeps bare, qa-s69d F3; and GOPATH mode's
    # "cannot find package "x" in any of:", in double quotes)
    ("go", r"\bno required module provides package ([\w.-]{1,200}(?:/[\w.@+-]{1,200}){0,20})"),
    ("go", r"\bcannot find package \"([^\"\s]{1,200})\""),
    # (old Go's "cannot find module providing package x"; not a path Go reads as the standard
    # library's, "package fmt is not in GOROOT (<path>)": its GOROOT is broken, every
    # package's the same fix, as the fingerprint keeps the name for an exact match)
    (
        "go",
        r"\bcannot find module providing package ([\w.-]{1,200}(?:/[\w.@+-]{1,200}){0,20})",
    ),
    # (pip's requirement and npm's 404, qa-s69d F4)
    (
        "python",
        r"\b(?:satisfies the requirement|no matching distribution found for) ([\w.-]{1,200})",
    ),
    ("node", r"'(@?[\w.-]{1,200}(?:/[\w.-]{1,200})?)' is not in (?:this|the npm) registry"),
    (
        "node",
        r"\b404 the requested resource '(@?[\w.-]{1,200}(?:/[\w.-]{1,200})?)' could not be found"
        r" or you do not have permission\b",
    ),
    # (vite's import, its Rollup's and its import analysis')
    ("node", r"\bfailed to resolve import \"([^\"\s]{1,200})\""),
    # (npm's and pnpm's 404 of the registry's URL, the package read out of it; npm 6's "404
    # not found: 'x'", its range left out; yarn classic's, read out of its URL)
    (
        "node",
        r"\b(?:(?:404 not found -|err_pnpm_fetch_404) get|404 not found:"
        r"|an unexpected error occurred:) '(@?[\w.-]{1,214}(?:/[\w.-]{1,214})?)'",
    ),
    # (Ruby's require: "cannot load such file -- nokogiri", the gem that has it)
    ("gem", r"\bcannot load such file -- ([\w-][\w.-]{0,200}(?:/[\w.-]{1,200}){0,20})"),
    # (Bundler's GemNotFound names the gem with its version, masked: "could not find
    # sidekiq-<n> in locally installed gems", qa-s69d F4)
    (
        "gem",
        r"\bcould not find (?!gem\b)([a-z0-9][\w.-]{0,200}?)(?:-<n>\S{0,100})?"
        r" in (?:locally installed gems|any of the sources)\b",
    ),
)
#: All of them as one pattern, each wording's name its own group (the group that matched
#: says the kind, :func:`missing_names`).
_MISSING_NAME = cued("|".join(pattern for _, pattern in _MISSING_OF_KIND))


def missing_names(fingerprint: str) -> list[tuple[str, str]]:
    """The modules, packages, gems and commands ``fingerprint`` says are missing, each as its
    kind and name, however each tool words it (``no module named 'yaml'`` is ``("python",
    "yaml")``, ``cannot find module 'lodash'`` ``("node", "lodash")``, ``command not found:
    'fd'`` ``("command", "fd")``): what search's missing-name rule compares."""
    return [
        (_MISSING_OF_KIND[m.lastindex - 1][0], _as_rust_path(m.group(m.lastindex)))
        for m in _MISSING_NAME.finditer(fingerprint)
        if m.lastindex is not None
    ]


#: What rustc's "cannot find 'nope' in 'fs'" (and "… in module 'crate::config'") says
#: between the item and where it looked, as :data:`_MISSING_OF_KIND` reads it.
_RUST_ITEM_IN = cued(r"' in (?:[a-z]+ )?'")


def _as_rust_path(name: str) -> str:
    """A missing name as :func:`missing_names` gives it: rustc's item and where it looked
    (``nope' in 'fs``) as one path (``fs::nope``); any other as it is."""
    parts = _RUST_ITEM_IN.split(name, maxsplit=1)
    return name if len(parts) == 1 else f"{parts[1]}::{parts[0]}"


def identifies(fingerprint: str) -> bool:
    """Whether ``fingerprint`` still names something once its masks are set aside: a word or
    an error code. The fingerprint of a signature that is all quoted message, path or
    number (``"unknown tool"`` → ``<q>``) is every such error's, and matches none of them
    exactly."""
    return _IDENTITY.search(_MASK.sub(" ", fingerprint or "")) is not None


#: The words a runner or a tool reports a failed command in, none of which says why it
#: failed: GitHub Actions' "Process completed with exit code 1", yarn's "error Command failed
#: with exit code 1", GitLab's "Job failed: exit code 1", Jenkins' "script returned exit code
#: 1", docker's "The command '…' returned a non-zero code: 1" and buildkit's "process '…' did
#: not complete successfully: exit code: 1", npm's "code ELIFECYCLE", Python's
#: "CalledProcessError: Command '…' returned non-zero exit status 1", a "CI job 'x' failed:",
#: Azure's "Bash exited with code '1'.", Gradle's "Process 'command …' finished with non-zero
#: exit value 1", compose's "service "x" didn't complete successfully: exit 1".
_ONLY_FAILED = frozenset(
    [
        "error",
        "errors",
        "err",
        "fatal",
        "npm",
        "yarn",
        "pnpm",
        "errno",
        "elifecycle",
        "ci",
        "job",
        "step",
        "process",
        "completed",
        "complete",
        "successfully",
        "did",
        "didn",
        "not",
        "the",
        "command",
        "script",
        "failed",
        "fail",
        "fails",
        "failure",
        "exit",
        "exited",
        "exits",
        "code",
        "status",
        "returned",
        "non",
        "zero",
        "nonzero",
        "with",
        "subprocess",
        "calledprocesserror",
        # Jenkins', GitLab's Kubernetes executor's, IntelliJ's, pip's, turbo's, pnpm's, Azure
        # Pipelines' (its shell's), Gradle's and compose's words for the same
        "hudson",
        "abortexception",
        "terminated",
        "finished",
        "errored",
        "out",
        "run",
        "recursive",
        "first",
        "bash",
        "powershell",
        "pwsh",
        "cmd",
        "value",
        "service",
        "container",
        "pod",
        # ... and what ran ("npm run build", "Build step 'Execute shell' marked build as
        # failure", just's "Recipe `test` failed on line 3", npm's "Lifecycle script")
        "build",
        "marked",
        "as",
        "recipe",
        "line",
        "lifecycle",
    ]
)
#: The exit statuses of any failure: 1 (any error) and 2 (make's failed recipe, a shell's or a
#: tool's usage error, mypy's and tsc's errors), and a shell's 127 and 126 (a command not
#: found, or not executable: which command, only the lines before them say; "jq is missing"
#: was the exact fix of every command missing, qa-s60 F11).
_ANY_FAILURE_STATUS = frozenset({"1", "2", "126", "127"})
#: Rails' summary of a request that failed (``Completed 500 Internal Server Error in 23ms
#: (ActiveRecord: …)``): every 500 of an app says it; its exception is logged under it (an
#: orders page's fix was the exact match of the users page's, qa-s60c H3).
_REQUEST_SUMMARY = cued(r"^completed\s<n>\s[^\n]*\bin\s<n>")
#: Node's and axios' aggregate of the connections tried, without the one that failed (an
#: entry stored under it was every refused connection's exact match).
_AGGREGATE_ALONE = cued(r"^(?:axioserror\s\[aggregateerror\]|aggregateerror(?:\s\[[a-z_]+\])?):?$")
_WORD = cued(r"[^\W\d_]{2,}")
_NUMBER = cued(r"\d+")


def specific(fingerprint: str) -> bool:
    """Whether two errors of ``fingerprint`` are one error, so that an entry it matches
    exactly is that error's fix: it :func:`identifies` one, and is more than a report that a
    command failed with the status of any failure (:data:`_ONLY_FAILED`,
    :data:`_ANY_FAILURE_STATUS`). Every CI job that fails exits 1: an entry stored as
    ``Process completed with exit code 1 | FIX: run black`` matched every one of them exactly
    (0.98), whatever had failed. Such a fingerprint still says which status it was, so that
    the entry of another (exit code 137's) is held as another error's. Rails' summary of a
    failed request (:data:`_REQUEST_SUMMARY`) and Node's aggregate of refused connections
    alone (:data:`_AGGREGATE_ALONE`) are not specific either."""
    rest = _MASK.sub(" ", fingerprint or "")
    if _IDENTITY.search(rest) is None:  # (identifies)
        return False
    if _REQUEST_SUMMARY.match(fingerprint) or _AGGREGATE_ALONE.match(fingerprint):
        return False
    return any(word not in _ONLY_FAILED for word in _WORD.findall(rest)) or any(
        number.lstrip("0") not in _ANY_FAILURE_STATUS for number in _NUMBER.findall(rest)
    )
