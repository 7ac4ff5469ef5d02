// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.31;

/// Uses Osaka's CLZ opcode (EIP-7939).
contract LeadingZeros {
    function leadingZeros(uint256 x) external pure returns (uint256 n) {
        assembly {
            n := clz(x)
        }
    }
}
