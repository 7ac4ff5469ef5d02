// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.28;

/// Uses Cancun's transient storage (EIP-1153) and, compiled for Shanghai or later, PUSH0 (EIP-3855).
contract TransientCounter {
    uint256 transient private entered;
    uint256 public count;

    function bump() external {
        require(entered == 0, "TransientCounter: reentered");
        entered = 1;
        count += 1;
        entered = 0;
    }
}
