"""PettingZoo environments for every installed game (the ``tlachtli[rl]`` extra).

``aec_env(game, players, seed, options)`` is an AEC environment (pettingzoo.org) over one rules
engine, in process, with no referee and no clocks:

- agents are the agent seats, ``seat_0`` .. ``seat_{players-1}``; in solo (``automaton=`` or an
  ``automaton`` game option) the game's automaton plays inside the environment, like chance;
- the action space of every agent is ``Discrete(max_options)`` (default 64 for every game; the
  most options seen in 300 random games per seat count are 16 in Zapotec and 21 in
  Teotihuacan): action ``i`` is option ``i`` of the current decision, and the observation's
  ``action_mask`` marks the options offered (a decision with more options raises TooManyOptions);
- an observation is a dict: ``engine``, the engine's observation of that seat (the ``obs`` a bot
  gets over the wire), ``action_mask`` (int8, ``max_options`` long; all zero for a seat not
  deciding now), and ``observation``, a float32 vector, where the game offers one (its
  ``observation_vector`` capability, engine/api.py: observation -> numbers, of fixed length);
- the decision itself (kind, prompt, option labels) is in ``infos[agent]`` for the deciding seat;
- rewards come at the end only: ``reward="margin"`` (default) gives each seat its score minus the
  best score among the other seats, the automaton's included; ``reward="win"`` gives +1 to a seat
  ranked first alone, 0 to seats sharing first place, -1 to the others.

Simultaneous decisions (several seats in ``to_act``) are asked one seat after the other, lowest
seat first, as ``engine.playout`` does. ``reset(seed=...)`` replays exactly; ``reset()`` draws
the next game seed from a generator seeded at construction. Game options are fixed at
construction: ``reset``'s ``options`` argument is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from random import Random
from typing import Any

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        f"arena.match.envs needs the reinforcement-learning extra: pip install 'tlachtli[rl]' ({error})"
    ) from error

from arena.registry.plugins import discover
from engine.api import Game, State, capabilities

DEFAULT_MAX_OPTIONS = 64
REWARDS = ("margin", "win")


class TooManyOptions(RuntimeError):
    """A decision with more options than the environment's action space holds."""


class EngineObservation(spaces.Space):
    """The engine's observation of a seat: a msgpack-able dict, game specific (see the game's docs)."""

    def __init__(self) -> None:
        super().__init__(shape=None, dtype=None)

    def contains(self, x: Any) -> bool:
        return isinstance(x, Mapping)

    def sample(self, mask: Any = None, probability: Any = None) -> dict:
        raise NotImplementedError("an engine observation cannot be sampled; play the game instead")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EngineObservation)

    def __repr__(self) -> str:
        return "EngineObservation()"


class TlachtliAEC(AECEnv):
    """One game, its agent seats as PettingZoo agents (see the module's docstring)."""

    metadata: dict[str, Any] = {"name": "tlachtli_v0", "render_modes": ["ansi"], "is_parallelizable": False}
    agent_selection: str  # (pettingzoo has no type hints: its attributes are declared here)
    infos: dict[str, dict[str, Any]]

    def __init__(
        self,
        game: Game,
        players: int,
        seed: int = 0,
        options: Mapping[str, Any] | None = None,
        automaton: str | None = None,
        reward: str = "margin",
        max_options: int = DEFAULT_MAX_OPTIONS,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        self.game = game
        self.players = players
        self.game_options = dict(options or {})
        if automaton is not None:
            self.game_options["automaton"] = automaton
        self.reward_kind = reward
        self.max_options = max_options
        self.render_mode = render_mode
        self._seeds = Random(seed)
        self._next_seed = seed
        self.state: State = game.setup(players, seed, self.game_options)  # bad options fail here
        self.possible_agents = [f"seat_{seat}" for seat in range(players)]
        self._vector = capabilities(game).observation_vector
        fields: dict[str, spaces.Space] = {
            "engine": EngineObservation(),
            "action_mask": spaces.Box(0, 1, (max_options,), np.int8),
        }
        if self._vector is not None:
            size = len(self._vector(self.state.observation(0)))
            fields["observation"] = spaces.Box(-np.inf, np.inf, (size,), np.float32)
        self._observation_spaces = {agent: spaces.Dict(fields) for agent in self.possible_agents}
        self._action_spaces = {agent: spaces.Discrete(max_options) for agent in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeds = Random(seed)
            game_seed = seed
        else:
            game_seed, self._next_seed = self._next_seed, self._seeds.randrange(2**31)
        self.state = self.game.setup(self.players, game_seed, self.game_options)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._select_next()

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self.possible_agents.index(agent)
        engine_obs = self.state.observation(seat)
        mask = np.zeros(self.max_options, np.int8)
        if not self.state.terminal() and agent == self.agent_selection:
            mask[: len(self.state.decision(seat).options)] = 1
        observation: dict[str, Any] = {"engine": engine_obs, "action_mask": mask}
        if self._vector is not None:
            observation["observation"] = np.asarray(self._vector(engine_obs), dtype=np.float32)
        return observation

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        offered = len(self.state.decision(seat).options)
        if action is None or not 0 <= int(action) < offered:
            raise ValueError(
                f"{agent}: action {action!r} is masked out; this decision offers 0..{offered - 1}"
            )
        self._cumulative_rewards[agent] = 0.0
        self.state.apply(seat, int(action))
        if self.state.terminal():
            self.rewards = self._final_rewards()
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = self.agents[(seat + 1) % len(self.agents)]
        else:
            self._select_next()
        self._accumulate_rewards()

    def _select_next(self) -> None:
        """Point agent_selection at the seat that decides now and describe its decision in infos."""
        seat = self.state.to_act()[0]  # simultaneous seats: one after another, lowest first
        decision = self.state.decision(seat)
        if len(decision.options) > self.max_options:
            raise TooManyOptions(
                f"{self.game.id}: a {decision.kind!r} decision offers {len(decision.options)} options, "
                f"more than max_options={self.max_options}; build the environment with a larger max_options"
            )
        self.agent_selection = self.possible_agents[seat]
        self.infos = {agent: {} for agent in self.agents}
        self.infos[self.agent_selection] = {
            "kind": decision.kind,
            "prompt": decision.prompt,
            "labels": [option.get("label", "") for option in decision.options],
        }

    def _final_rewards(self) -> dict[str, float]:
        result = self.state.result()
        firsts = result.ranks.count(1)
        rewards = {}
        for seat, agent in enumerate(self.possible_agents):
            if self.reward_kind == "margin":
                others = [score for other, score in enumerate(result.scores) if other != seat]
                rewards[agent] = float(result.scores[seat] - max(others, default=0))
            elif result.ranks[seat] != 1:
                rewards[agent] = -1.0
            else:
                rewards[agent] = 1.0 if firsts == 1 else 0.0
        return rewards

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self.state.render()
        return None

    def close(self) -> None:
        pass


def aec_env(
    game: str | Game,
    players: int,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    *,
    automaton: str | None = None,
    reward: str = "margin",
    max_options: int = DEFAULT_MAX_OPTIONS,
    render_mode: str | None = None,
) -> AECEnv:
    """A PettingZoo AEC environment for ``game`` (an installed game's id, or a Game object).

    Wrapped in PettingZoo's order-enforcing wrapper (``env.unwrapped`` is the TlachtliAEC).
    """
    if isinstance(game, str):
        game = discover().game(game)
    env = TlachtliAEC(game, players, seed, options, automaton, reward, max_options, render_mode)
    return wrappers.OrderEnforcingWrapper(env)
