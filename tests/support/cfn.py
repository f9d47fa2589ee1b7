"""A small evaluator of the template's intrinsic functions for a given set of parameters, so
tests can read a policy as CloudFormation would resolve it (conditions, Select/Split, Sub)."""

from __future__ import annotations

import re
from typing import Any

PSEUDO = {
    "AWS::Region": "us-east-1",
    "AWS::AccountId": "123456789012",
    "AWS::Partition": "aws",
    "AWS::StackName": "docflow",
}
NO_VALUE = object()
_VAR = re.compile(r"\$\{([^}!]+)\}")


class Resolver:
    def __init__(self, template: dict[str, Any], **params: str) -> None:
        defaults = {k: str(v.get("Default", "")) for k, v in template["Parameters"].items()}
        self.values: dict[str, Any] = {**PSEUDO, **defaults, **params}
        self.conditions: dict[str, Any] = template.get("Conditions", {})

    def condition(self, name: str) -> bool:
        return bool(self(self.conditions[name]))

    def __call__(self, node: Any) -> Any:
        if isinstance(node, list):
            return [v for v in (self(n) for n in node) if v is not NO_VALUE]
        if not isinstance(node, dict):
            return node
        if len(node) != 1:
            return {k: v for k, v in ((k, self(v)) for k, v in node.items()) if v is not NO_VALUE}
        ((key, arg),) = node.items()
        if key == "Ref":
            return NO_VALUE if arg == "AWS::NoValue" else self.values.get(arg, f"<{arg}>")
        if key in ("Condition", "Fn::Condition"):  # `!Condition` in a condition
            return self.condition(arg)
        if key == "Fn::If":
            name, then, otherwise = arg
            return self(then if self.condition(name) else otherwise)
        if key == "Fn::Equals":
            return self(arg[0]) == self(arg[1])
        if key == "Fn::And":
            return all(self(a) for a in arg)
        if key == "Fn::Or":
            return any(self(a) for a in arg)
        if key == "Fn::Not":
            return not self(arg[0])
        if key == "Fn::Select":
            return self(arg[1])[int(self(arg[0]))]
        if key == "Fn::Split":
            return str(self(arg[1])).split(arg[0])
        if key == "Fn::Join":
            return arg[0].join(str(v) for v in self(arg[1]))
        if key == "Fn::Sub":
            text, names = (arg, {}) if isinstance(arg, str) else (arg[0], self(arg[1]))
            values = {**self.values, **names}
            return _VAR.sub(lambda m: str(values.get(m[1], m[0])), text)
        if key == "Fn::GetAtt":
            return f"<{'.'.join(arg) if isinstance(arg, list) else arg}>"
        return {key: self(arg)}

    def statements(self, props: dict[str, Any]) -> list[dict[str, Any]]:
        """A function's inline policy statements as deployed with these parameters."""
        found = []
        for policy in props.get("Policies", []):
            if isinstance(policy, dict) and "Statement" in policy:
                found.extend(s for s in self(policy["Statement"]) if s is not NO_VALUE)
        return found
