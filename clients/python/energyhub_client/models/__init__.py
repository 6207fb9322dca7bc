"""Contains all the data models used in inputs/outputs"""

from .action_record import ActionRecord
from .action_record_on_conflict_type_0 import ActionRecordOnConflictType0
from .action_record_parameters import ActionRecordParameters
from .action_record_result_type_0 import ActionRecordResultType0
from .action_record_state import ActionRecordState
from .action_record_type import ActionRecordType
from .add_site_prices_body import AddSitePricesBody
from .add_site_readings_body import AddSiteReadingsBody
from .at_recurrence_in import AtRecurrenceIn
from .at_schedule_body import AtScheduleBody
from .at_slot_in import AtSlotIn
from .at_slot_in_parameters_type_0 import AtSlotInParametersType0
from .at_slot_out import AtSlotOut
from .at_slot_out_parameters import AtSlotOutParameters
from .battery_device import BatteryDevice
from .battery_device_commands import BatteryDeviceCommands
from .battery_device_conflict_strategies_type_0_item import BatteryDeviceConflictStrategiesType0Item
from .battery_device_current_schedule_type_0 import BatteryDeviceCurrentScheduleType0
from .battery_device_settings import BatteryDeviceSettings
from .battery_state import BatteryState
from .battery_state_status import BatteryStateStatus
from .charging_goal import ChargingGoal
from .charging_plan import ChargingPlan
from .charging_plan_status import ChargingPlanStatus
from .charging_plan_strategy_type_0 import ChargingPlanStrategyType0
from .charging_session import ChargingSession
from .charging_session_end_reason_type_0 import ChargingSessionEndReasonType0
from .charging_session_measurement import ChargingSessionMeasurement
from .charging_session_status import ChargingSessionStatus
from .command_spec import CommandSpec
from .command_spec_execution_item import CommandSpecExecutionItem
from .command_spec_parameters import CommandSpecParameters
from .delivery_attempt import DeliveryAttempt
from .device_metadata import DeviceMetadata
from .device_metadata_cache_type_type_0 import DeviceMetadataCacheTypeType0
from .device_metadata_source import DeviceMetadataSource
from .device_summary import DeviceSummary
from .device_summary_type import DeviceSummaryType
from .dynamic_prices_in import DynamicPricesIn
from .endpoint_create import EndpointCreate
from .endpoint_create_events_type_0_item import EndpointCreateEventsType0Item
from .energy_amount import EnergyAmount
from .energy_goal_body import EnergyGoalBody
from .energy_in import EnergyIn
from .energy_out import EnergyOut
from .envelope_action_record import EnvelopeActionRecord
from .envelope_battery_device import EnvelopeBatteryDevice
from .envelope_charging_goal import EnvelopeChargingGoal
from .envelope_charging_plan import EnvelopeChargingPlan
from .envelope_ev_charger_device import EnvelopeEvChargerDevice
from .envelope_link_session import EnvelopeLinkSession
from .envelope_linked_account import EnvelopeLinkedAccount
from .envelope_linked_accounts import EnvelopeLinkedAccounts
from .envelope_page_action_record import EnvelopePageActionRecord
from .envelope_page_battery_device import EnvelopePageBatteryDevice
from .envelope_page_ev_charger_device import EnvelopePageEvChargerDevice
from .envelope_page_webhook_delivery import EnvelopePageWebhookDelivery
from .envelope_sandbox_connection import EnvelopeSandboxConnection
from .envelope_schedule_record import EnvelopeScheduleRecord
from .envelope_sessions_page import EnvelopeSessionsPage
from .envelope_settings_data import EnvelopeSettingsData
from .envelope_site_record import EnvelopeSiteRecord
from .envelope_union_battery_device_ev_charger_device import EnvelopeUnionBatteryDeviceEvChargerDevice
from .envelope_union_charging_goal_none_type import EnvelopeUnionChargingGoalNoneType
from .envelope_user_devices import EnvelopeUserDevices
from .envelope_vehicle import EnvelopeVehicle
from .envelope_vpp_lock import EnvelopeVppLock
from .envelope_webhook_delivery import EnvelopeWebhookDelivery
from .envelope_webhook_endpoint import EnvelopeWebhookEndpoint
from .envelope_webhook_endpoint_with_secret import EnvelopeWebhookEndpointWithSecret
from .envelope_webhook_endpoints import EnvelopeWebhookEndpoints
from .error_body import ErrorBody
from .error_body_details_type_0 import ErrorBodyDetailsType0
from .error_envelope import ErrorEnvelope
from .error_meta import ErrorMeta
from .ev_charger_device import EvChargerDevice
from .ev_charger_device_commands import EvChargerDeviceCommands
from .ev_charger_device_conflict_strategies_type_0_item import EvChargerDeviceConflictStrategiesType0Item
from .ev_charger_device_current_schedule_type_0 import EvChargerDeviceCurrentScheduleType0
from .ev_charger_device_settings import EvChargerDeviceSettings
from .ev_charger_state import EvChargerState
from .ev_charger_state_not_charging_reason_type_0 import EvChargerStateNotChargingReasonType0
from .ev_charger_state_status import EvChargerStateStatus
from .exclusion_in import ExclusionIn
from .exclusion_out import ExclusionOut
from .last_action import LastAction
from .link_session import LinkSession
from .link_session_create import LinkSessionCreate
from .link_session_create_vendor import LinkSessionCreateVendor
from .linked_account import LinkedAccount
from .linked_account_device_type_type_0 import LinkedAccountDeviceTypeType0
from .linked_account_status import LinkedAccountStatus
from .linked_accounts import LinkedAccounts
from .links import Links
from .list_actions_state_type_0 import ListActionsStateType0
from .list_charging_sessions_status_type_0 import ListChargingSessionsStatusType0
from .list_user_devices_type_type_0_item import ListUserDevicesTypeType0Item
from .list_webhook_deliveries_status_type_0 import ListWebhookDeliveriesStatusType0
from .meta import Meta
from .meta_environment import MetaEnvironment
from .money import Money
from .page_action_record import PageActionRecord
from .page_battery_device import PageBatteryDevice
from .page_ev_charger_device import PageEvChargerDevice
from .page_webhook_delivery import PageWebhookDelivery
from .pagination import Pagination
from .parameter_spec import ParameterSpec
from .percent_amount import PercentAmount
from .percent_in import PercentIn
from .plan_slot import PlanSlot
from .plan_slot_source import PlanSlotSource
from .plan_steering import PlanSteering
from .plan_steering_state import PlanSteeringState
from .power_in import PowerIn
from .power_in_unit import PowerInUnit
from .power_limit_in import PowerLimitIn
from .power_limit_in_unit import PowerLimitInUnit
from .power_out import PowerOut
from .price_period_in import PricePeriodIn
from .push_body import PushBody
from .push_body_on_conflict_type_0 import PushBodyOnConflictType0
from .push_command import PushCommand
from .push_command_parameters import PushCommandParameters
from .quantity import Quantity
from .quantity_in import QuantityIn
from .quantity_out import QuantityOut
from .reading import Reading
from .reading_in import ReadingIn
from .recurrence_in import RecurrenceIn
from .recurrence_in_days_type_0_item import RecurrenceInDaysType0Item
from .recurrence_in_rule_type_0 import RecurrenceInRuleType0
from .recurrence_out import RecurrenceOut
from .recurrence_out_days_type_0_item import RecurrenceOutDaysType0Item
from .recurrence_out_rule_type_0 import RecurrenceOutRuleType0
from .rotate_secret import RotateSecret
from .sandbox_battery_request import SandboxBatteryRequest
from .sandbox_battery_request_profile_type_0 import SandboxBatteryRequestProfileType0
from .sandbox_connection import SandboxConnection
from .sandbox_ev_charger_request import SandboxEvChargerRequest
from .sandbox_ev_charger_request_profile_type_0 import SandboxEvChargerRequestProfileType0
from .sandbox_failure import SandboxFailure
from .sandbox_failure_errorcode import SandboxFailureErrorcode
from .schedule_record import ScheduleRecord
from .schedule_record_devicetype import ScheduleRecordDevicetype
from .schedule_record_state import ScheduleRecordState
from .session_cost import SessionCost
from .session_window_out import SessionWindowOut
from .sessions_page import SessionsPage
from .setting_in import SettingIn
from .setting_value import SettingValue
from .settings_data import SettingsData
from .settings_data_settings import SettingsDataSettings
from .simulate_hold_body import SimulateHoldBody
from .simulate_reset_body import SimulateResetBody
from .site_record import SiteRecord
from .skipped_occurrence import SkippedOccurrence
from .skipped_occurrence_details_type_0 import SkippedOccurrenceDetailsType0
from .sync import Sync
from .target_goal_body import TargetGoalBody
from .tariff_in import TariffIn
from .time_of_use_in import TimeOfUseIn
from .time_of_use_period_in import TimeOfUsePeriodIn
from .time_schedule_body import TimeScheduleBody
from .time_slot_in import TimeSlotIn
from .time_slot_in_parameters_type_0 import TimeSlotInParametersType0
from .time_slot_out import TimeSlotOut
from .time_slot_out_parameters import TimeSlotOutParameters
from .update_site_body import UpdateSiteBody
from .user_devices import UserDevices
from .vehicle import Vehicle
from .vehicle_ref import VehicleRef
from .vpp_lock import VppLock
from .vpp_lock_body import VppLockBody
from .webhook_delivery import WebhookDelivery
from .webhook_delivery_event import WebhookDeliveryEvent
from .webhook_delivery_payload import WebhookDeliveryPayload
from .webhook_delivery_status import WebhookDeliveryStatus
from .webhook_endpoint import WebhookEndpoint
from .webhook_endpoint_events_type_0_item import WebhookEndpointEventsType0Item
from .webhook_endpoint_with_secret import WebhookEndpointWithSecret
from .webhook_endpoint_with_secret_events_type_0_item import WebhookEndpointWithSecretEventsType0Item
from .webhook_endpoints import WebhookEndpoints
from .write_battery_settings_body import WriteBatterySettingsBody
from .write_ev_charger_settings_body import WriteEvChargerSettingsBody

__all__ = (
    "ActionRecord",
    "ActionRecordOnConflictType0",
    "ActionRecordParameters",
    "ActionRecordResultType0",
    "ActionRecordState",
    "ActionRecordType",
    "AddSitePricesBody",
    "AddSiteReadingsBody",
    "AtRecurrenceIn",
    "AtScheduleBody",
    "AtSlotIn",
    "AtSlotInParametersType0",
    "AtSlotOut",
    "AtSlotOutParameters",
    "BatteryDevice",
    "BatteryDeviceCommands",
    "BatteryDeviceConflictStrategiesType0Item",
    "BatteryDeviceCurrentScheduleType0",
    "BatteryDeviceSettings",
    "BatteryState",
    "BatteryStateStatus",
    "ChargingGoal",
    "ChargingPlan",
    "ChargingPlanStatus",
    "ChargingPlanStrategyType0",
    "ChargingSession",
    "ChargingSessionEndReasonType0",
    "ChargingSessionMeasurement",
    "ChargingSessionStatus",
    "CommandSpec",
    "CommandSpecExecutionItem",
    "CommandSpecParameters",
    "DeliveryAttempt",
    "DeviceMetadata",
    "DeviceMetadataCacheTypeType0",
    "DeviceMetadataSource",
    "DeviceSummary",
    "DeviceSummaryType",
    "DynamicPricesIn",
    "EndpointCreate",
    "EndpointCreateEventsType0Item",
    "EnergyAmount",
    "EnergyGoalBody",
    "EnergyIn",
    "EnergyOut",
    "EnvelopeActionRecord",
    "EnvelopeBatteryDevice",
    "EnvelopeChargingGoal",
    "EnvelopeChargingPlan",
    "EnvelopeEvChargerDevice",
    "EnvelopeLinkedAccount",
    "EnvelopeLinkedAccounts",
    "EnvelopeLinkSession",
    "EnvelopePageActionRecord",
    "EnvelopePageBatteryDevice",
    "EnvelopePageEvChargerDevice",
    "EnvelopePageWebhookDelivery",
    "EnvelopeSandboxConnection",
    "EnvelopeScheduleRecord",
    "EnvelopeSessionsPage",
    "EnvelopeSettingsData",
    "EnvelopeSiteRecord",
    "EnvelopeUnionBatteryDeviceEvChargerDevice",
    "EnvelopeUnionChargingGoalNoneType",
    "EnvelopeUserDevices",
    "EnvelopeVehicle",
    "EnvelopeVppLock",
    "EnvelopeWebhookDelivery",
    "EnvelopeWebhookEndpoint",
    "EnvelopeWebhookEndpoints",
    "EnvelopeWebhookEndpointWithSecret",
    "ErrorBody",
    "ErrorBodyDetailsType0",
    "ErrorEnvelope",
    "ErrorMeta",
    "EvChargerDevice",
    "EvChargerDeviceCommands",
    "EvChargerDeviceConflictStrategiesType0Item",
    "EvChargerDeviceCurrentScheduleType0",
    "EvChargerDeviceSettings",
    "EvChargerState",
    "EvChargerStateNotChargingReasonType0",
    "EvChargerStateStatus",
    "ExclusionIn",
    "ExclusionOut",
    "LastAction",
    "LinkedAccount",
    "LinkedAccountDeviceTypeType0",
    "LinkedAccounts",
    "LinkedAccountStatus",
    "Links",
    "LinkSession",
    "LinkSessionCreate",
    "LinkSessionCreateVendor",
    "ListActionsStateType0",
    "ListChargingSessionsStatusType0",
    "ListUserDevicesTypeType0Item",
    "ListWebhookDeliveriesStatusType0",
    "Meta",
    "MetaEnvironment",
    "Money",
    "PageActionRecord",
    "PageBatteryDevice",
    "PageEvChargerDevice",
    "PageWebhookDelivery",
    "Pagination",
    "ParameterSpec",
    "PercentAmount",
    "PercentIn",
    "PlanSlot",
    "PlanSlotSource",
    "PlanSteering",
    "PlanSteeringState",
    "PowerIn",
    "PowerInUnit",
    "PowerLimitIn",
    "PowerLimitInUnit",
    "PowerOut",
    "PricePeriodIn",
    "PushBody",
    "PushBodyOnConflictType0",
    "PushCommand",
    "PushCommandParameters",
    "Quantity",
    "QuantityIn",
    "QuantityOut",
    "Reading",
    "ReadingIn",
    "RecurrenceIn",
    "RecurrenceInDaysType0Item",
    "RecurrenceInRuleType0",
    "RecurrenceOut",
    "RecurrenceOutDaysType0Item",
    "RecurrenceOutRuleType0",
    "RotateSecret",
    "SandboxBatteryRequest",
    "SandboxBatteryRequestProfileType0",
    "SandboxConnection",
    "SandboxEvChargerRequest",
    "SandboxEvChargerRequestProfileType0",
    "SandboxFailure",
    "SandboxFailureErrorcode",
    "ScheduleRecord",
    "ScheduleRecordDevicetype",
    "ScheduleRecordState",
    "SessionCost",
    "SessionsPage",
    "SessionWindowOut",
    "SettingIn",
    "SettingsData",
    "SettingsDataSettings",
    "SettingValue",
    "SimulateHoldBody",
    "SimulateResetBody",
    "SiteRecord",
    "SkippedOccurrence",
    "SkippedOccurrenceDetailsType0",
    "Sync",
    "TargetGoalBody",
    "TariffIn",
    "TimeOfUseIn",
    "TimeOfUsePeriodIn",
    "TimeScheduleBody",
    "TimeSlotIn",
    "TimeSlotInParametersType0",
    "TimeSlotOut",
    "TimeSlotOutParameters",
    "UpdateSiteBody",
    "UserDevices",
    "Vehicle",
    "VehicleRef",
    "VppLock",
    "VppLockBody",
    "WebhookDelivery",
    "WebhookDeliveryEvent",
    "WebhookDeliveryPayload",
    "WebhookDeliveryStatus",
    "WebhookEndpoint",
    "WebhookEndpointEventsType0Item",
    "WebhookEndpoints",
    "WebhookEndpointWithSecret",
    "WebhookEndpointWithSecretEventsType0Item",
    "WriteBatterySettingsBody",
    "WriteEvChargerSettingsBody",
)
