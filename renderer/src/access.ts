import { contract, type ChannelName } from '../../electron/contract'
import { mayCall, type Role } from '../../electron/contract/define'

/** Whether a role may call a channel, straight from the contract's access lists. */
export function canUse(channel: ChannelName, role: Role | null | undefined): boolean {
  return mayCall(contract[channel].access, role ?? null)
}
